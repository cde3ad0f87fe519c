package recoverable_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// Traffic says what a session waits for: how many of its requests, and
// whether it has set a watch since its last notification, as a candidate
// does when it has done all that the notification made it do. Reads that
// ask for no watch, and a get on a missing znode (which leaves none), do
// not count; an exists on a missing znode leaves one, for its creation.
func TestTrafficSaysWhenASessionWatchesAgain(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 10*time.Second)
	other := connect(t, cluster.Servers(), 10*time.Second)
	ctx := testCtx(t)
	check := func(what string, inFlight, watches int64) recoverable.Traffic {
		t.Helper()
		got := rz.Traffic()
		if got.InFlight != inFlight || got.WatchesSinceEvent != watches {
			t.Errorf("%s: %d in flight, %d watches since the notification; want %d and %d", what, got.InFlight, got.WatchesSinceEvent, inFlight, watches)
		}
		return got
	}
	if _, err := other.Create(ctx, "/w", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	check("a fresh session", 0, 0)
	if _, err := rz.Children(ctx, "/w"); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := rz.GetW(ctx, "/w/missing"); err == nil {
		t.Fatal("a get on a missing znode found it")
	}
	check("a listing without a watch, a get of nothing", 0, 0)
	_, _, created, err := rz.ExistsW(ctx, "/w/a")
	if err != nil {
		t.Fatal(err)
	}
	_, listed, err := rz.ChildrenW(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	check("an exists on a missing znode, then a listing, both watching", 0, 2)

	// One create fires both watches: the first notification starts the
	// count again, and the second finds it at 0.
	if _, err := other.Create(ctx, "/w/a", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	<-created
	<-listed
	before := check("notified", 0, 0)
	if before.Events < 2 {
		t.Errorf("%d notifications, want 2", before.Events)
	}

	// An answer held back on the way: the request waits, and its watch is
	// not set until the answer comes.
	answered, release := proxy.HoldReply(zktest.OpExists)
	done := make(chan error, 1)
	go func() {
		_, _, _, err := rz.ExistsW(ctx, "/w/a")
		done <- err
	}()
	<-answered
	check("an exists whose answer is held back", 1, 0)
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	check("the exists answered", 0, 1)

	// A request whose connection drops waits no more.
	answered, release = proxy.HoldReply(zktest.OpExists)
	defer release()
	go func() {
		_, _, err := rz.ExistsOnce(ctx, "/w/a")
		done <- err
	}()
	<-answered
	check("a second exists held back", 1, 1)
	proxy.Reset()
	<-done
	check("its connection reset", 0, 1)
}
