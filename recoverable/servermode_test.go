package recoverable_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// waitMode waits until rz knows the mode of its server, and fails the test
// unless it is want.
func waitMode(t *testing.T, rz *recoverable.RecoverableZookeeper, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for rz.ServerMode() == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the server's mode is still unknown after 10s (want %q)", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := rz.ServerMode(); got != want {
		t.Fatalf("ServerMode = %q, want %q", got, want)
	}
}

// freshReadCost counts the requests and round trips of one SyncExists, on a
// session that gets no notification meanwhile.
func freshReadCost(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) (requests, roundTrips int64) {
	t.Helper()
	before := rz.Traffic()
	ok, st, sent, err := rz.SyncExists(testCtx(t), path)
	if err != nil || !ok || st == nil || sent.IsZero() {
		t.Fatalf("SyncExists(%s) = %v, %+v, %v, %v", path, ok, st, sent, err)
	}
	after := rz.Traffic()
	return after.SinceEvent - before.SinceEvent, after.RoundTripsSinceEvent - before.RoundTripsSinceEvent
}

// A standalone server has no leader to catch up with, so a fresh read is
// the read alone; every member of an ensemble gets the sync in front, the
// ZooKeeper leader too.
func TestStandaloneServerSkipsTheSync(t *testing.T) {
	t.Parallel()
	t.Run("standalone", func(t *testing.T) {
		cluster := zktest.Start(t, 1)
		rz := connect(t, cluster.Servers(), 10*time.Second)
		waitMode(t, rz, "standalone")
		if req, _ := freshReadCost(t, rz, "/"); req != 1 {
			t.Errorf("a fresh exists on a standalone server sent %d requests, want 1 (no sync)", req)
		}
	})
	t.Run("ensemble", func(t *testing.T) {
		cluster := zktest.Start(t, 3)
		for i := range 3 {
			rz := connect(t, []string{cluster.Server(i)}, 10*time.Second)
			waitMode(t, rz, cluster.Mode(i))
			if req, trips := freshReadCost(t, rz, "/"); req != 2 || trips != 1 {
				t.Errorf("on the %s, a fresh exists sent %d requests in %d round trips, want 2 (sync, exists) in 1", cluster.Mode(i), req, trips)
			}
		}
	})
}

// The mode belongs to one connection: when it is lost, the client forgets
// it at once, and syncs again until the server of the next connection has
// answered srvr. (A read sent over another connection than the one whose
// mode it trusted proves nothing, ErrReconnected; that race is too narrow
// to stage here.)
func TestServerModeIsForgottenWithTheConnection(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 10*time.Second)
	ctx := testCtx(t)
	waitMode(t, rz, "standalone")
	events := rz.Observe(ctx)
	<-events // the state now

	proxy.Reset()
	for ev := range events {
		if ev.State == recoverable.StateDisconnected {
			break
		}
	}
	if mode := rz.ServerMode(); mode != "" {
		t.Fatalf("disconnected, ServerMode = %q, want unknown", mode)
	}
	// A read asked while disconnected goes with a sync, since the mode is
	// unknown; go-zookeeper sends it once reconnected, or fails it as
	// retryable when its dial is refused first.
	type answer struct {
		ok  bool
		err error
	}
	read := make(chan answer, 1)
	go func() {
		ok, _, _, err := rz.SyncExists(ctx, "/")
		read <- answer{ok, err}
	}()
	time.Sleep(100 * time.Millisecond)
	proxy.Restore()
	got := <-read
	if got.err != nil && !recoverable.IsRetryable(got.err) {
		t.Fatalf("a read across the reconnect failed with %v", got.err)
	}
	t.Logf("the read across the reconnect: ok=%v err=%v", got.ok, got.err)
	waitMode(t, rz, "standalone")
	if req, _ := freshReadCost(t, rz, "/"); req != 1 {
		t.Errorf("reconnected to the standalone server, a fresh exists sent %d requests, want 1", req)
	}
	if _, err := rz.Create(ctx, "/after", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
}
