package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// A test's own message, as go test prints t.Errorf and t.Fatalf: indented,
// then the test file and line. Messages from helper files (a cluster's logs,
// a process's stderr) are not the reason and are left out.
var testMessage = regexp.MustCompile(`^(\s+)\S+_test\.go:\d+: `)

const (
	whyMessages = 5   // per failed test
	whyLines    = 3   // per message: its first line and what continues it
	whyWidth    = 300 // characters per line
)

// printWhy repeats, for each failed test, the messages it printed itself.
// A failure's cleanups can print pages of server log after them, and CI
// shows only the tail of the run.
func printWhy(w io.Writer, results []*result) {
	first := true
	for _, r := range results {
		for _, name := range r.failed {
			b := r.output[name]
			if b == nil || hasFailedChild(r, name) {
				continue
			}
			if first {
				fmt.Fprintln(w, "\nwhy each test failed, in its own words:")
				first = false
			}
			fmt.Fprintf(w, "  %s %s\n", strings.TrimPrefix(r.pkg, "zkspeaker/"), name)
			lines := testMessages(b.String())
			if len(lines) == 0 {
				lines = []string{"(no message from a _test.go file: a panic, a timeout or a helper's; see its output above)"}
			}
			for _, line := range lines {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}

// testMessages picks a test's own messages out of its output: each
// message's first line and the more indented lines that continue it.
func testMessages(out string) []string {
	var picked []string
	messages, indent, taken := 0, "", 0
	for _, line := range strings.Split(out, "\n") {
		if m := testMessage.FindStringSubmatch(line); m != nil {
			if messages == whyMessages {
				break
			}
			messages++
			indent, taken = m[1], 1
			picked = append(picked, clip(strings.TrimSpace(line)))
			continue
		}
		continues := indent != "" && strings.HasPrefix(line, indent+" ") && strings.TrimSpace(line) != ""
		if continues && taken < whyLines {
			taken++
			picked = append(picked, "  "+clip(strings.TrimSpace(line)))
		} else if !continues {
			indent = ""
		}
	}
	return picked
}

func clip(s string) string {
	if len(s) > whyWidth {
		return s[:whyWidth] + " …"
	}
	return s
}
