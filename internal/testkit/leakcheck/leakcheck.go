// Package leakcheck fails a test binary whose tests left goroutines
// running: the rule that whoever starts a goroutine ends it, checked. It
// uses the standard library only, in the manner of etcd's integration
// tests: after the tests, it reads every goroutine's stack and ignores the
// ones that the runtime and the testing package keep for themselves.
package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// ignored are marks of goroutines that belong to the runtime, the testing
// package or os/signal, not to the code under test.
var ignored = []string{
	"testing.Main(",
	"testing.(*M).",
	"testing.tRunner(",
	"testing.runTests(",
	"leakcheck.Leaked(",
	"runtime.goexit",
	"created by runtime.gc",
	"runtime.MHeap_Scavenger",
	"signal.signal_recv",
	"signal.loop",
	"sigterm.handler",
	"runtime_mcall",
	"goroutine in C code",
}

// Main runs the tests of m, then fails the binary if any goroutine they
// started is still running 5 seconds later. Use it in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
func Main(m *testing.M) int {
	return Check(m.Run())
}

// Check returns code, or 1 with a report on stderr when code is 0 and
// goroutines remain: for a TestMain that has cleanup of its own to run
// between the tests and the check.
func Check(code int) int {
	if code != 0 {
		return code
	}
	if leaks := Leaked(5 * time.Second); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "leakcheck: %d goroutine(s) still running after the tests:\n\n%s\n", len(leaks), strings.Join(leaks, "\n\n"))
		return 1
	}
	return code
}

// Leaked returns the stacks of the goroutines that are not the runtime's or
// the testing package's, waiting up to wait for them to end.
func Leaked(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		leaks := interesting()
		if len(leaks) == 0 || time.Now().After(deadline) {
			return leaks
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func interesting() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		g = strings.TrimSpace(g)
		if g == "" || isIgnored(g) {
			continue
		}
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}

func isIgnored(stack string) bool {
	// The first goroutine is the one asking: skip it by its own frame.
	for _, mark := range ignored {
		if strings.Contains(stack, mark) {
			return true
		}
	}
	return false
}
