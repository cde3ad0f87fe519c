package recoverable_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// A pipelined pair costs one round trip: with every answer held back by
// the network for L, the pair returns after about L, where the same two
// requests one after the other take 2L. The series is measured too, so that
// the test shows it can tell them apart.
func TestPipelinesCostOneRoundTrip(t *testing.T) {
	t.Parallel()
	const latency = 300 * time.Millisecond
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 10*time.Second)
	ctx := testCtx(t)
	if _, err := rz.Create(ctx, "/p", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	proxy.SetReplyLatency(latency)
	// One exchange on the slow link first, so that nothing below waits
	// for anything but its own answers.
	if _, _, err := rz.Exists(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	oneTrip := func(name string, d time.Duration) {
		t.Helper()
		t.Logf("%s: %v (latency %v)", name, d.Round(time.Millisecond), latency)
		if d >= latency*3/2 {
			t.Errorf("%s took %v: more than one round trip of %v", name, d, latency)
		}
	}

	start := time.Now()
	if err := rz.Sync(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	if _, err := rz.Children(ctx, "/p"); err != nil {
		t.Fatal(err)
	}
	if series := time.Since(start); series < 2*latency {
		t.Fatalf("sync then children in series took %v, under two round trips: the latency is not in force", series)
	}

	start = time.Now()
	l, err := rz.SyncChildren(ctx, "/p")
	children, sent, syncErr := l.Children, l.Sent, l.SyncErr
	if syncErr != nil || err != nil || len(children) != 0 || sent.Before(start) {
		t.Fatalf("SyncChildren = %v, %v, %v, %v", children, sent, syncErr, err)
	}
	oneTrip("sync+children", time.Since(start))

	start = time.Now()
	ok, st, _, err := rz.SyncExists(ctx, "/p")
	if err != nil || !ok || st == nil {
		t.Fatalf("SyncExists = %v, %v, %v", ok, st, err)
	}
	oneTrip("sync+exists", time.Since(start))

	start = time.Now()
	race, err := rz.CreateEphemeralExistsW(ctx, "/p/leader", []byte("me"), zk.WorldACL(zk.PermAll))
	st, wake, createErr := race.Stat, race.Wake, race.CreateErr
	if createErr != nil || err != nil || st == nil || st.EphemeralOwner != rz.SessionID() || wake == nil {
		t.Fatalf("CreateEphemeralExistsW = %+v, %v, %v", st, createErr, err)
	}
	oneTrip("create+exists", time.Since(start))

	// The loser of the race learns who holds it, in the same round trip.
	other := connect(t, []string{cluster.Server(0)}, 10*time.Second)
	race, err = other.CreateEphemeralExistsW(ctx, "/p/leader", nil, zk.WorldACL(zk.PermAll))
	st, createErr = race.Stat, race.CreateErr
	if !errors.Is(createErr, zk.ErrNodeExists) || err != nil || st == nil || st.EphemeralOwner != rz.SessionID() {
		t.Fatalf("second create = %+v, %v, %v; want node-exists and the first session as owner", st, createErr, err)
	}
}

// The exists of a pipeline is answered after the sync, never before: the
// server serves a session's requests in order, and the exists leaves only
// once the sync is on the wire. A create's answer in the same pipeline
// shows the same: the exists sees the znode the create made.
func TestPipelineKeepsItsOrder(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := connect(t, cluster.Servers(), 10*time.Second)
	ctx := testCtx(t)
	for i := 0; i < 50; i++ {
		race, err := rz.CreateEphemeralExistsW(ctx, "/order", nil, zk.WorldACL(zk.PermAll))
		st, createErr := race.Stat, race.CreateErr
		if createErr != nil || err != nil || st == nil {
			t.Fatalf("round %d: the exists did not see the create's znode: %+v, %v, %v", i, st, createErr, err)
		}
		if err := rz.Delete(ctx, "/order", -1); err != nil {
			t.Fatal(err)
		}
	}
}

// Traffic counts what a session sent since its last notification, and in
// how many round trips: a pair sent together is one, the same two requests
// in series are two. A second session deletes the watched znode, so that
// the notification is real. The server is standalone, so a fresh read is
// one request (see TestStandaloneServerSkipsTheSync).
func TestTrafficCountsRoundTripsAfterANotification(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := connect(t, cluster.Servers(), 10*time.Second)
	other := connect(t, cluster.Servers(), 10*time.Second)
	ctx := testCtx(t)
	waitMode(t, rz, "standalone")
	if _, err := rz.Create(ctx, "/t", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	notifyOnce := func() {
		t.Helper()
		if _, err := other.Create(ctx, "/t/w", nil, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		_, _, wake, err := rz.ExistsW(ctx, "/t/w")
		if err != nil {
			t.Fatal(err)
		}
		if err := other.Delete(ctx, "/t/w", -1); err != nil {
			t.Fatal(err)
		}
		<-wake
	}
	before := rz.Traffic()
	notifyOnce()
	sending := time.Now()
	if race, err := rz.CreateEphemeralExistsW(ctx, "/t/e", nil, zk.WorldACL(zk.PermAll)); race.CreateErr != nil || err != nil {
		t.Fatal(race.CreateErr, err)
	}
	got := rz.Traffic()
	if got.WroteAt.Before(sending) || got.WroteAt.After(got.AnsweredAt) {
		t.Errorf("the create went out at %v: want after %v, when it was sent, and before its answer at %v", got.WroteAt, sending, got.AnsweredAt)
	}
	if got.Events != before.Events+1 || got.SinceEvent != 2 || got.RoundTripsSinceEvent != 1 || got.WritesSinceEvent != 1 {
		t.Errorf("after a notification and a pipelined create+exists: %+v (before %+v), want 1 more event and 2 requests, 1 a write, in 1 round trip", got, before)
	}
	// The exists watch, the create in between is the other session's.
	if got.Requests != before.Requests+3 {
		t.Errorf("requests %d, want %d (the exists watch, the create, the exists)", got.Requests, before.Requests+3)
	}

	wrote := got.WroteAt
	notifyOnce()
	if err := rz.Sync(ctx, "/t"); err != nil {
		t.Fatal(err)
	}
	if _, err := rz.Children(ctx, "/t"); err != nil {
		t.Fatal(err)
	}
	if got := rz.Traffic(); got.SinceEvent != 2 || got.RoundTripsSinceEvent != 2 || !got.WroteAt.Equal(wrote) {
		t.Errorf("after a notification, sync then children in series: %+v, want 2 requests in 2 round trips, and no write since %v", got, wrote)
	}

	// A pipeline's second request does not wait for the first's answer,
	// even when a busy scheduler sends it after that answer came: the
	// protocol's round trips are counted, not the scheduler's.
	notifyOnce()
	if err := rz.CreateExistsAfterAnswer(ctx, "/t/late"); err != nil {
		t.Fatal(err)
	}
	if got := rz.Traffic(); got.SinceEvent != 2 || got.RoundTripsSinceEvent != 1 {
		t.Errorf("after a notification, a create+exists whose exists left after the create's answer: %+v, want 2 requests in 1 round trip", got)
	}

	notifyOnce()
	if l, err := rz.SyncChildren(ctx, "/t"); l.SyncErr != nil || err != nil {
		t.Fatal(l.SyncErr, err)
	}
	if got := rz.Traffic(); got.SinceEvent != 1 || got.RoundTripsSinceEvent != 1 {
		t.Errorf("after a notification, a fresh listing on a standalone server: %+v, want 1 request in 1 round trip", got)
	}
}
