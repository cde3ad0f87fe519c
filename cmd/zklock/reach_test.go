package main

import (
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// With no ZooKeeper at the address, zklock waits for the lock as a
// candidate waits for its election, and says so: a WARN that nothing
// answers and how to start a server, and the waiting lines. Ctrl-C ends
// the wait with one line of its own, under its name.
func TestNoZooKeeperIsSaidWhileWaiting(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t) // -short is the unit-only mode
	addr := zktest.NoZooKeeper(t)
	p := zktest.ExpectWaitsWithoutZooKeeper(t, addr, 130, zklockBin(t), "--servers", addr, "--", "true")
	lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
	if last := lines[len(lines)-1]; last != "zklock: interrupted while waiting for the lock" {
		t.Fatalf("last line %q, want zklock's own", last)
	}
}

// As the speaker does, zklock warns when the server changed the session
// timeout it asked for: the watchdog's deadline counts from the granted one.
func TestGrantedSessionTimeoutIsWarnedAbout(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	p := zktest.Run(t, zklockBin(t), "--servers", cluster.ConnString(), "--session-timeout", zktest.BelowMinSession, "--path", zktest.Path(t), "--", "true")
	if code := wait(t, p, 15*time.Second); code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, p.Stderr())
	}
	want := `level=WARN msg="the server raised our session timeout to the shortest it allows"`
	if !strings.Contains(p.Stderr(), want) || !strings.Contains(p.Stderr(), "asked=300ms granted=400ms") {
		t.Fatalf("stderr, want a warning with asked=300ms granted=400ms:\n%s", p.Stderr())
	}
}
