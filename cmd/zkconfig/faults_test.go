package main_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// waitExit waits for p to exit and returns its status.
func waitExit(t *testing.T, p *zktest.Process, timeout time.Duration, what string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", what, err, p.Stderr())
	}
	return code
}

// The watcher is cut off past its session timeout, and a value is written
// meanwhile. When the network heals, its session has expired with its
// watch; it reads again on the new session, prints that value, and follows
// the key from there.
func TestWatcherSurvivesSessionExpiry(t *testing.T) {
	t.Parallel()
	s := server(t)
	dir := fresh("/t/wexp")
	path := dir + "/colour"
	set := func(v string) { mustRun(t, "set", "--servers", s, "--path", dir, "colour", v) }
	set("before")
	proxy := zktest.NewProxy(t, s)
	watcher := start(t, "watch", "--servers", proxy.Addr(), "--session-timeout", "1s", "--path", dir, "colour")
	waitLast(t, watcher, path, "before", 15*time.Second, "the watcher reads the key")

	proxy.Cut()
	set("during")
	time.Sleep(3 * time.Second) // 3 x S
	if got := values(t, watcher.Stdout(), path); len(got) != 1 {
		t.Fatalf("while cut off the watcher printed %q, want only before", got)
	}
	proxy.Heal()
	waitLast(t, watcher, path, "during", 15*time.Second, "after the expiry the watcher prints the value written during the outage")
	if !strings.Contains(watcher.Stderr(), "session expired") {
		t.Fatalf("the watcher's log does not say its session expired:\n%s", watcher.Stderr())
	}
	set("after")
	waitLast(t, watcher, path, "after", 10*time.Second, "the watcher follows the key on its new session")
	running(t, watcher, "watch")
	stop(t, watcher, "watch")
	if got := values(t, watcher.Stdout(), path); strings.Join(got, ",") != "before,during,after" {
		t.Fatalf("the watcher printed %q, want before, during, after", got)
	}
}

// The chapter's point: the plain updater dies when its session expires,
// with a line that says so; the resilient one carries on in a new session.
// The plain one writes only once here (--every 1m), so that no write is on
// its way during the partition: what ends it is the expiry alone.
func TestUpdaterSessionExpiry(t *testing.T) {
	t.Parallel()
	s := server(t)
	t.Run("plain", func(t *testing.T) {
		dir := fresh("/t/pexp")
		path := dir + "/colour"
		proxy := zktest.NewProxy(t, s)
		updater := start(t, "update", "--servers", proxy.Addr(), "--session-timeout", "1s", "--every", "1m", "--path", dir, "colour")
		waitValues(t, updater, path, 1, 15*time.Second, "the first write")
		proxy.Cut()
		time.Sleep(3 * time.Second)
		running(t, updater, "the plain updater, cut off but not yet told of the expiry")
		proxy.Heal()
		if code := waitExit(t, updater, 10*time.Second, "the plain updater after its session expired"); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		last := lastLine(updater.Stderr())
		if !strings.HasPrefix(last, "zkconfig: config: session expired (session 0x") || !strings.Contains(last, "--resilient") {
			t.Fatalf("last line %q, want one that says the session expired and points to --resilient", last)
		}
		if got := values(t, updater.Stdout(), path); len(got) != 1 {
			t.Fatalf("the plain updater printed %q, want its one write", got)
		}
		// Its session is gone already, so nothing is left to close: the
		// way out must not claim that the session will expire on its own.
		if strings.Contains(updater.Stderr(), "did not answer the close") {
			t.Fatalf("the plain updater warned of a close it had no session for:\n%s", updater.Stderr())
		}
	})
	t.Run("resilient", func(t *testing.T) {
		dir := fresh("/t/rexp")
		path := dir + "/colour"
		proxy := zktest.NewProxy(t, s)
		updater := start(t, "update", "--resilient", "--servers", proxy.Addr(), "--session-timeout", "1s", "--every", "200ms", "--path", dir, "colour")
		before := len(waitValues(t, updater, path, 3, 15*time.Second, "the first writes"))
		proxy.Cut()
		time.Sleep(3 * time.Second)
		cut := len(values(t, completeLines(updater.Stdout()), path))
		proxy.Heal()
		if cut > before+1 { // one write may have been answered just before the cut
			t.Fatalf("the updater printed %d values while cut off", cut-before)
		}
		waitValues(t, updater, path, cut+5, 15*time.Second, "the resilient updater writes on after the expiry")
		running(t, updater, "the resilient updater")
		for _, want := range []string{"session expired", "carrying on"} {
			if !strings.Contains(updater.Stderr(), want) {
				t.Fatalf("the resilient updater's log does not say %q:\n%s", want, updater.Stderr())
			}
		}
		stop(t, updater, "update --resilient")
		written := values(t, updater.Stdout(), path)
		if r := mustRun(t, "get", "--servers", s, "--path", dir, "colour"); r.stdout != written[len(written)-1]+"\n" {
			t.Fatalf("the key holds %q, want the updater's last value %q", r.stdout, written[len(written)-1])
		}
	})
}

// The plain updater frozen past its session (SIGSTOP, as a long pause
// would). When it wakes, its timer fires at once, and which news comes
// first is a race: the expiry (it stops, saying so), the dead connection
// under the write it just made (it stops on the connection loss: the
// server closed the connection when it expired the session), or neither,
// and the write waits in go-zookeeper's queue and goes out in the new
// session (it prints the value, which is in, and stops on the expiry).
// Every way, it exits 1 with one of those lines, and the key holds the
// last value it printed, or the one whose fate its last line leaves open.
func TestPlainUpdaterFrozenPastItsSession(t *testing.T) {
	t.Parallel()
	s := server(t)
	dir := fresh("/t/frozen")
	path := dir + "/colour"
	updater := start(t, "update", "--servers", s, "--session-timeout", "1s", "--every", "200ms", "--path", dir, "colour")
	waitValues(t, updater, path, 2, 15*time.Second, "the first writes")
	updater.Stop()
	time.Sleep(3 * time.Second)
	updater.Cont()
	if code := waitExit(t, updater, 10*time.Second, "the plain updater after its session expired"); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	written := values(t, updater.Stdout(), path)
	want := []string{written[len(written)-1]}
	last := lastLine(updater.Stderr())
	switch {
	case strings.Contains(last, "which may or may not have landed"):
		_, open, _ := strings.Cut(last, " while writing "+path+" = ")
		open, _, _ = strings.Cut(open, ",")
		want = append(want, open)
	case strings.HasPrefix(last, "zkconfig: config: session expired (session 0x"):
	case strings.HasPrefix(last, "zkconfig: config: lost the connection to ZooKeeper while writing "+path+" = "):
		open, _, _ := strings.Cut(strings.TrimPrefix(last, "zkconfig: config: lost the connection to ZooKeeper while writing "+path+" = "), " ")
		want = append(want, open)
	default:
		t.Fatalf("last line %q, want one that says the session expired or the connection was lost", last)
	}
	got := mustRun(t, "get", "--servers", s, "--path", dir, "colour").stdout
	if !slices.Contains(want, strings.TrimSuffix(got, "\n")) {
		t.Fatalf("the key holds %q, want one of %q", got, want)
	}
	t.Logf("it stopped with %q", last)
}

// The plain updater stops at the first connection loss, saying the write
// may or may not have landed: here the network refuses it for good.
func TestPlainUpdaterExitsOnConnectionLoss(t *testing.T) {
	t.Parallel()
	s := server(t)
	proxy := zktest.NewProxy(t, s)
	dir := fresh("/t/loss")
	updater := start(t, "update", "--servers", proxy.Addr(), "--session-timeout", "2s", "--every", "100ms", "--path", dir, "colour")
	before := len(waitValues(t, updater, dir+"/colour", 2, 15*time.Second, "the first writes"))
	proxy.Reset() // every connection reset, new ones refused
	// At worst a write leaves just before the reset and waits out the
	// session timeout in go-zookeeper's queue.
	if code := waitExit(t, updater, 2*time.Second+3*time.Second, "the plain updater after a connection loss"); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	last := lastLine(updater.Stderr())
	if !strings.HasPrefix(last, "zkconfig: config: lost the connection to ZooKeeper while writing "+dir+"/colour = ") || !strings.Contains(last, "--resilient") {
		t.Fatalf("last line %q, want one that says the connection was lost while writing, and points to --resilient", last)
	}
	if got := len(values(t, updater.Stdout(), dir+"/colour")); got > before+1 {
		t.Fatalf("%d values after the reset, want at most the one answered before it", got-before)
	}
}

// A connection lost and regained between two writes ends nothing: the
// plain updater stops only when a write of its own meets the loss (or at
// an expiry), as the chapter's ConfigUpdater does, and its log says so
// from the start.
func TestPlainUpdaterSurvivesAReconnectBetweenWrites(t *testing.T) {
	t.Parallel()
	s := server(t)
	proxy := zktest.NewProxy(t, s)
	dir := fresh("/t/blip")
	updater := start(t, "update", "--servers", proxy.Addr(), "--session-timeout", "4s", "--every", "3s", "--path", dir, "colour")
	n := len(waitValues(t, updater, dir+"/colour", 1, 15*time.Second, "the first write"))
	proxy.Reset() // just after a write: the next is 3 s away
	time.Sleep(200 * time.Millisecond)
	proxy.Restore()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	if err := updater.WaitForStderr(ctx, "msg=reconnected"); err != nil {
		t.Fatalf("no reconnect within the session: %v\n%s", err, updater.Stderr())
	}
	waitValues(t, updater, dir+"/colour", n+2, 15*time.Second, "writes after the reconnect")
	running(t, updater, "update")
	if want := `mode="plain: a write that loses its connection, or a session expiry, ends it"`; !strings.Contains(updater.Stderr(), want) {
		t.Errorf("the log does not say what ends the plain updater (%s):\n%s", want, updater.Stderr())
	}
}

// On a 3-server ensemble, servers die and come back under a running
// `update --resilient` and a running `watch`: a follower, then the leader,
// then two at once, which loses the quorum for longer than the updater's
// two retries could cover. Neither command exits: a write that no server
// took was never sent, so waiting for one uses no retry. The updater
// writes on after each fault; once it stops, the watcher ends on its last
// value, having printed nothing it did not write.
func TestEnsembleServersDieUnderUpdateAndWatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("testing.Short() is set: -short runs unit tests only, and this one needs a real ZooKeeper ensemble")
	}
	cluster := zktest.Start(t, 3)
	const path = "/t/ens/colour"
	// A session that outlasts a leader election on a busy machine.
	common := []string{"--servers", cluster.ConnString(), "--session-timeout", "8s", "--path", "/t/ens"}
	watcher := start(t, append(append([]string{"watch"}, common...), "colour")...)
	updater := start(t, append(append([]string{"update", "--resilient", "--retries", "2", "--every", "100ms"}, common...), "colour")...)
	n := len(waitValues(t, updater, path, 3, 20*time.Second, "the first writes"))

	follower := (cluster.Leader() + 1) % 3
	faults := []struct {
		name string
		down func() []int
	}{
		{"a follower", func() []int { return []int{follower} }},
		{"the leader", func() []int { return []int{cluster.Leader()} }},
		{"two servers: no quorum", func() []int { l := cluster.Leader(); return []int{l, (l + 1) % 3} }},
	}
	for _, f := range faults {
		down := f.down()
		if len(down) == 0 || down[0] < 0 {
			t.Fatalf("%s: no leader to find", f.name)
		}
		for _, i := range down {
			cluster.Kill(i)
		}
		t.Logf("killed %s (%v) after %d writes", f.name, down, n)
		if len(down) == 1 { // a majority is still up: writes go on
			n = len(waitValues(t, updater, path, n+3, 30*time.Second, "writes with "+f.name+" down"))
		} else {
			// Each pass of go-zookeeper over the three servers takes a
			// second at least; two retries cover three passes.
			time.Sleep(6 * time.Second)
		}
		cluster.StartMany(down...)
		for _, i := range down {
			cluster.WaitServing(i)
		}
		n = len(waitValues(t, updater, path, n+3, 30*time.Second, "writes after "+f.name+" came back"))
		running(t, updater, "update --resilient")
		running(t, watcher, "watch")
	}
	stop(t, updater, "update --resilient")
	written, last := stoppedUpdater(t, updater, path)
	waitLastOf(t, watcher, path, last, 15*time.Second, "the watcher ends on the last value written")
	stop(t, watcher, "watch")
	subsequence(t, values(t, watcher.Stdout(), path), written)
	if strings.Contains(updater.Stderr(), "gave up") {
		t.Fatalf("the updater gave up a write:\n%s", updater.Stderr())
	}
	if strings.Contains(updater.Stderr(), "retries exhausted") {
		t.Fatalf("a log line speaks of retries exhausted while the updater had retries left:\n%s", updater.Stderr())
	}
}
