package electiontest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// FenceClosesTheWindow runs ConfirmOvertakenByDelete twice for one recipe,
// whose candidates at path at(path) starts: without the fence it must find
// a stale line (or the window was not reproduced, and the second run would
// prove nothing), and with the fence none.
func FenceClosesTheWindow(t *testing.T, cluster *zktest.Cluster, at func(path string) NewMonitor) {
	t.Run("without fence, a stale line", func(t *testing.T) {
		if n := ConfirmOvertakenByDelete(t, cluster, at("/overtaken-nofence"), false); n == 0 {
			t.Fatal("no stale line without the fence: the window was not reproduced, so the fenced run proves nothing")
		}
	})
	t.Run("with fence, none", func(t *testing.T) {
		if n := ConfirmOvertakenByDelete(t, cluster, at("/overtaken-fence"), true); n != 0 {
			t.Fatalf("%d stale line(s) after the successor's first, with the fence on", n)
		}
	})
}

// ConfirmOvertakenByDelete reproduces the window that at-most-one leaves
// without a fence. Leader A talks to ZooKeeper through a proxy. The moment
// the server has answered A's confirm (a sync, then an exists), the proxy
// holds that answer, an operator deletes A's znode, and the replies slow
// down to a second. Follower B is told at once, leads, confirms and
// writes; then A's "yes, you lead" is let through, ahead of the
// notification of the delete on the same connection, and A writes a line
// with its old epoch after B's first line. It returns how many of A's
// lines follow B's first line in out.txt: with fence, the speaker's
// default, there must be none.
func ConfirmOvertakenByDelete(t *testing.T, cluster *zktest.Cluster, newMonitor NewMonitor, fence bool) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := filepath.Join(t.TempDir(), "out.txt")
	proxy := zktest.NewProxy(t, cluster.Server(0))
	// The interval makes the confirm deadline 1 s, longer than two delayed
	// round trips (600 ms), so A's answer is fresh when it arrives.
	join := func(name string, servers []string) (*speaker.Speaker, Monitor) {
		log := zktest.Logger(t).With("candidate", name)
		spk, err := speaker.New(out, speaker.WithName(name), speaker.WithInterval(2*time.Second),
			speaker.WithFence(fence), speaker.WithFsync(false), speaker.WithLogger(log))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { spk.Close() })
		m, err := newMonitor(Connect(t, servers, 4*time.Second, recoverable.WithLogger(log)), spk)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		return spk, m
	}
	a, am := join("A", []string{proxy.Addr()})
	WaitStatus(t, am, 10*time.Second, "A leads", func(s election.Status) bool { return s.State == election.StateActive })
	if err := a.Wait(ctx, 1); err != nil {
		t.Fatalf("A never wrote: %v", err)
	}
	b, bm := join("B", cluster.Servers())
	WaitStatus(t, bm, 10*time.Second, "B waits", func(s election.Status) bool { return s.Node != "" })

	// The operator connects beforehand: its delete must follow A's answer
	// within a round trip, not a handshake later.
	operator := Connect(t, cluster.Servers(), 4*time.Second)
	if err := operator.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	// The next exists is A's confirm. Its answer is held until B has
	// written, whenever that is: a fixed delay was once too short for B on
	// a loaded machine, and the test saw no window.
	answered, release := proxy.HoldReply(zktest.OpExists)
	defer release()
	select {
	case <-answered:
	case <-ctx.Done():
		t.Fatal("A never confirmed again: the test proved nothing")
	}
	// The network slows down further right after A's answer left the
	// server: the notification of the delete, behind it on the same
	// connection, is held a second. Without that, the notification lands a
	// millisecond after the answer, and A's monitor usually silences it
	// before it writes: the window is real but too narrow to hit every time.
	proxy.SetReplyLatency(time.Second)
	if err := operator.Delete(ctx, am.Node(), -1); err != nil {
		t.Fatalf("the operator's delete: %v", err)
	}
	if err := b.Wait(ctx, 1); err != nil {
		t.Fatalf("B never took over: %v", err)
	}
	// A's answer lands now, the notification a second after the delete:
	// give A time to act on the first.
	release()
	time.Sleep(time.Second)
	a.Close()
	b.Close()
	return linesAfter(t, out, "A", "B")
}

// linesAfter counts the lines of name that follow the first line of other
// in the file at path.
func linesAfter(t *testing.T, path, name, other string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, seen := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l, err := speaker.ParseLine(sc.Text())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch {
		case l.Name == other:
			seen = true
		case l.Name == name && seen:
			n++
			t.Logf("stale line: %s", sc.Text())
		}
	}
	return n
}
