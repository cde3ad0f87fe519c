package main_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// bin is the zkconfig binary, built by TestMain; servers is a real
// standalone server that TestMain starts for the tests that need no other.
var (
	bin     string
	servers []string
)

// TestMain builds the command once, then runs the tests with a real server
// (none under -short) and fails the package if they leave a goroutine.
func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	// A race-enabled binary sleeps a second at exit, by default, for late
	// reports; every run of zkconfig would take a second more.
	if err := os.Setenv("GORACE", "atexit_sleep_ms=0 halt_on_error=1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return zktest.MainCommand(m, &servers, &bin, raceFlags...)
}

// server returns the shared server's address, and skips under -short.
func server(t *testing.T) string {
	t.Helper()
	zktest.SkipShort(t)
	return servers[0]
}

// runs numbers the base paths of the tests, so that a test run again on
// the same server (go test -count=2) starts from nothing as the first did.
var runs atomic.Int64

// fresh returns base with a number that no earlier call returned.
func fresh(base string) string { return fmt.Sprintf("%s-%d", base, runs.Add(1)) }

// result is how a finished run of zkconfig went.
type result struct {
	code           int
	stdout, stderr string
}

// run runs zkconfig to its end, within 30s.
func run(t *testing.T, args ...string) result {
	t.Helper()
	p := zktest.Run(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("zkconfig %q: %v; stderr:\n%s", args, err, p.Stderr())
	}
	return result{code, p.Stdout(), p.Stderr()}
}

// mustRun is run that wants exit status 0.
func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, args...)
	if r.code != 0 {
		t.Fatalf("zkconfig %q: exit %d, want 0; stderr:\n%s", args, r.code, r.stderr)
	}
	return r
}

// start starts a zkconfig that runs on (update, watch); the test's end
// stops it.
func start(t *testing.T, args ...string) *zktest.Process {
	t.Helper()
	return zktest.Run(t, bin, args...)
}

// stop sends SIGTERM and wants exit status 0 within 5s: update and watch
// end cleanly on it.
func stop(t *testing.T, p *zktest.Process, name string) {
	t.Helper()
	p.Term()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("%s after SIGTERM: exit %d (%v), want 0; stderr:\n%s", name, code, err, p.Stderr())
	}
}

// running fails the test if p has exited.
func running(t *testing.T, p *zktest.Process, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if code, err := p.Wait(ctx); err == nil {
		t.Fatalf("%s exited with status %d; stderr:\n%s", name, code, p.Stderr())
	}
}

// valueLine is one line of update and watch: time, znode, value.
var valueLine = regexp.MustCompile(`^(\d\d:\d\d:\d\d\.\d{3}) (/\S*) = (.*)$`)

// values parses the stdout of update or watch, every line of which must be
// a value of path, and returns the values.
func values(t *testing.T, stdout, path string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if l == "" && stdout == "" {
			break
		}
		m := valueLine.FindStringSubmatch(l)
		if m == nil || m[2] != path {
			t.Fatalf("line %q is not \"HH:MM:SS.mmm %s = VALUE\"; stdout:\n%s", l, path, stdout)
		}
		out = append(out, m[3])
	}
	return out
}

// waitValues waits until p has printed at least n values of path.
func waitValues(t *testing.T, p *zktest.Process, path string, n int, timeout time.Duration, what string) []string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := values(t, completeLines(p.Stdout()), path)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d values within %v, want %d; stdout:\n%s\nstderr:\n%s", what, len(got), timeout, n, p.Stdout(), p.Stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitLast waits until the last value p printed is want.
func waitLast(t *testing.T, p *zktest.Process, path, want string, timeout time.Duration, what string) {
	t.Helper()
	waitLastOf(t, p, path, []string{want}, timeout, what)
}

// waitLastOf waits until p's last value of path is one of wants.
func waitLastOf(t *testing.T, p *zktest.Process, path string, wants []string, timeout time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := values(t, completeLines(p.Stdout()), path)
		if len(got) > 0 && slices.Contains(wants, got[len(got)-1]) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: last value %q after %v, want one of %q; stdout:\n%s\nstderr:\n%s", what, got, timeout, wants, p.Stdout(), p.Stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inFlight matches the updater's last words when SIGTERM came while a
// write was out: that value may land after the last one it printed.
var inFlight = regexp.MustCompile(`stopped with a write in flight.* value=(\S+)`)

// stoppedUpdater reads a stopped updater's output: the values it printed,
// and the values the key may end on: its last printed value, and the
// value of a write still in flight when it stopped.
func stoppedUpdater(t *testing.T, updater *zktest.Process, path string) (written, last []string) {
	t.Helper()
	written = values(t, updater.Stdout(), path)
	if len(written) > 0 {
		last = append(last, written[len(written)-1])
	}
	if m := inFlight.FindStringSubmatch(updater.Stderr()); m != nil {
		written = append(written, m[1])
		last = append(last, m[1])
	}
	return written, last
}

// completeLines drops a line still being written.
func completeLines(s string) string {
	return s[:strings.LastIndex(s, "\n")+1]
}

// subsequence fails the test unless the watcher's values appear, in
// order, among the updater's. Runs of one value are collapsed first: a
// write made again after a lost reply (the same value, a new zxid) is two
// writes to the watcher and one line to the updater. A watcher may miss
// values, never invent or reorder them.
func subsequence(t *testing.T, watched, written []string) {
	t.Helper()
	w, u := collapse(watched), collapse(written)
	i := 0
	for _, v := range u {
		if i < len(w) && w[i] == v {
			i++
		}
	}
	if i != len(w) {
		t.Fatalf("the watcher printed %q, which is not in order among the updater's %q", w, u)
	}
}

func collapse(vs []string) []string {
	var out []string
	for _, v := range vs {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}
