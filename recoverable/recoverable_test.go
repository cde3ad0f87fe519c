package recoverable_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// connect opens a RecoverableZookeeper on servers and waits for its session.
var connect = electiontest.Connect

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestOperationRetriedAcrossServerRestart(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := connect(t, cluster.Servers(), 4*time.Second)
	ctx := testCtx(t)

	cluster.Stop(0)
	time.AfterFunc(700*time.Millisecond, func() { cluster.Start(0) })
	start := time.Now()
	if _, err := rz.Create(ctx, "/across-restart", []byte("x"), zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create across a restart: %v", err)
	}
	if time.Since(start) < 500*time.Millisecond {
		t.Fatalf("create returned after %v, before the server was back: it was not across the restart", time.Since(start))
	}
	data, _, err := rz.Get(ctx, "/across-restart")
	if err != nil || string(data) != "x" {
		t.Fatalf("get = %q, %v", data, err)
	}
}

func TestOperationRetriedAcrossProxyReset(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 4*time.Second)
	ctx := testCtx(t)
	before := rz.SessionID()

	proxy.Reset()
	time.AfterFunc(600*time.Millisecond, proxy.Restore)
	if _, err := rz.Create(ctx, "/across-reset", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create across a reset: %v", err)
	}
	if ok, _, err := rz.Exists(ctx, "/across-reset"); err != nil || !ok {
		t.Fatalf("exists = %v, %v", ok, err)
	}
	if rz.SessionID() != before {
		t.Fatalf("session changed from 0x%x to 0x%x across a short reset", before, rz.SessionID())
	}
}

func TestLostCreateReplyLeavesExactlyOneEphemeral(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 4*time.Second)
	observer := connect(t, cluster.Servers(), 4*time.Second)
	ctx := testCtx(t)

	proxy.ResetAfterCreate("/leader")
	p, err := rz.CreateEphemeral(ctx, "/leader", []byte("me"), zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create with a lost reply: %v", err)
	}
	select {
	case <-proxy.Fired():
	default:
		t.Fatal("the proxy never dropped the create's reply: the test proved nothing")
	}
	ok, st, err := observer.Exists(ctx, p)
	if err != nil || !ok {
		t.Fatalf("exists %s = %v, %v", p, ok, err)
	}
	if st.EphemeralOwner != rz.SessionID() {
		t.Fatalf("owner 0x%x, want our session 0x%x", st.EphemeralOwner, rz.SessionID())
	}
}

func TestLostCreateReplyLeavesExactlyOneSequential(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 4*time.Second)
	observer := connect(t, cluster.Servers(), 4*time.Second)
	ctx := testCtx(t)
	if err := observer.EnsurePath(ctx, "/election", zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	proxy.ResetAfterCreate("/election/")
	name, err := recoverable.NewProtectedName("n_")
	if err != nil {
		t.Fatal(err)
	}
	p, err := rz.CreateProtectedEphemeralSequential(ctx, "/election", name, []byte("me"), zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatalf("create with a lost reply: %v", err)
	}
	select {
	case <-proxy.Fired():
	default:
		t.Fatal("the proxy never dropped the create's reply: the test proved nothing")
	}
	children, err := observer.Children(ctx, "/election")
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 || "/election/"+children[0] != p {
		t.Fatalf("children = %v, want exactly our %s", children, p)
	}
	if !strings.HasPrefix(children[0], recoverable.ProtectedPrefix) || !strings.Contains(children[0], "-n_") {
		t.Fatalf("child %q has no protected name", children[0])
	}
	_, st, err := observer.Exists(ctx, p)
	if err != nil || st.EphemeralOwner != rz.SessionID() {
		t.Fatalf("owner = %v (%v), want our session 0x%x", st, err, rz.SessionID())
	}
}

func TestNodeExistsOfAnotherSessionIsAnError(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	a := connect(t, cluster.Servers(), 4*time.Second)
	b := connect(t, cluster.Servers(), 4*time.Second)
	ctx := testCtx(t)
	// Same data on purpose: the article's data comparison would call it b's.
	if _, err := a.CreateEphemeral(ctx, "/leader", []byte("same-name"), zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	_, err := b.CreateEphemeral(ctx, "/leader", []byte("same-name"), zk.WorldACL(zk.PermAll))
	if !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("second create = %v, want ErrNodeExists", err)
	}
	// Our own node, met again, is ours.
	if _, err := a.CreateEphemeral(ctx, "/leader", []byte("same-name"), zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create of a node our session holds = %v, want success", err)
	}
}

func TestExpiryIsSurfacedAsANewSession(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, time.Second)
	ctx := testCtx(t)
	events := rz.Observe(ctx)
	if ev := <-events; ev.State != recoverable.StateConnected {
		t.Fatalf("first event %v, want connected", ev)
	}
	old := rz.SessionID()
	if _, err := rz.CreateEphemeral(ctx, "/mine", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}

	proxy.Cut() // a silent partition, longer than the session
	time.Sleep(3 * rz.SessionTimeout())
	proxy.Heal()

	want := []recoverable.SessionState{recoverable.StateDisconnected, recoverable.StateExpired, recoverable.StateConnected}
	for _, w := range want {
		select {
		case ev := <-events:
			if ev.State != w {
				t.Fatalf("event %v, want %v", ev, w)
			}
			if w == recoverable.StateConnected && (!ev.NewSession || ev.SessionID == old) {
				t.Fatalf("after expiry: %+v, want a new session", ev)
			}
		case <-ctx.Done():
			t.Fatalf("no %v event", w)
		}
	}
	if ok, _, err := rz.Exists(ctx, "/mine"); err != nil || ok {
		t.Fatalf("the expired session's ephemeral: exists = %v, %v; want gone", ok, err)
	}
}

// AliveUntil is a promise about the server: cut the client off, and the
// session's ephemeral znode is still there just before AliveUntil. It is
// also recent: the client pings every third of the session timeout, so the
// last answered request left at most that long before the cut.
func TestAliveUntilIsNeverAfterTheServerExpiresTheSession(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	ctx := testCtx(t)
	observer := connect(t, cluster.Servers(), 4*time.Second)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		proxy := zktest.NewProxy(t, cluster.Server(0))
		rz := connect(t, []string{proxy.Addr()}, 2*time.Second)
		s := rz.SessionTimeout()
		if _, err := rz.CreateEphemeral(ctx, "/alive", nil, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(s) // a few pings
		proxy.Cut()
		cut := time.Now()
		time.Sleep(50 * time.Millisecond) // let any answer already on its way arrive
		until := rz.AliveUntil()
		if until.After(cut.Add(s)) || until.Before(cut.Add(s-s/3-100*time.Millisecond)) {
			t.Fatalf("AliveUntil is %v after the cut, want between S - S/3 and S (S = %v)", until.Sub(cut), s)
		}
		time.Sleep(time.Until(until.Add(-20 * time.Millisecond)))
		if ok, _, err := observer.Exists(ctx, "/alive"); err != nil || !ok {
			t.Fatalf("20 ms before AliveUntil the session's znode is gone (%v, %v): the server expired it sooner", ok, err)
		}
		electiontest.Eventually(t, s+zktest.TickTime+2*time.Second, "the server expires the session", func() bool {
			ok, _, err := observer.Exists(ctx, "/alive")
			return err == nil && !ok
		})
		proxy.Heal()
		rz.Close()
	}
}

func TestCloseIsIdempotentAndEndsObservers(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := connect(t, cluster.Servers(), 2*time.Second)
	events := rz.Observe(context.Background())
	<-events
	rz.Close()
	rz.Close()
	var last recoverable.SessionEvent
	for ev := range events {
		last = ev
	}
	if last.State != recoverable.StateClosed {
		t.Fatalf("last event %v, want closed", last)
	}
	if _, _, err := rz.Exists(context.Background(), "/"); !errors.Is(err, recoverable.ErrClosed) {
		t.Fatalf("exists after Close = %v, want ErrClosed", err)
	}
}

// A server that accepts the connection but never answers the handshake (as
// one that is starting up can) is given up on like any silent server, after
// two thirds of the session timeout, not after go-zookeeper's ten times
// that (27 s here): the client moves on to a server that answers. The
// client picks its first server at random, so three clients try: without
// the limit, seven times in eight at least one starts with the silent one.
func TestUnansweredHandshakeMovesOn(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	silent := zktest.NewProxy(t, cluster.Server(0))
	silent.Cut()
	defer silent.Heal()
	for i := 0; i < 3; i++ {
		rz := connect(t, []string{silent.Addr(), cluster.Server(0)}, 4*time.Second)
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		err := rz.WaitConnected(ctx)
		cancel()
		if err != nil {
			t.Fatalf("client %d: not connected after %v with an answering server in the list: %v", i, time.Since(start), err)
		}
		if d := time.Since(start); d > 6*time.Second {
			t.Fatalf("client %d connected after %v: the silent server held it past two thirds of the session timeout", i, d)
		}
		rz.Close()
	}
}

// DeleteOwn deletes an ephemeral of the session it names, and nothing once
// the client holds another session: a znode at the same path is then
// someone else's, even at the version we saw (re-created znodes start at 0).
func TestDeleteOwnSparesAnotherSessionsZnode(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := connect(t, cluster.Servers(), 4*time.Second)
	other := connect(t, cluster.Servers(), 4*time.Second)
	ctx := testCtx(t)
	if _, err := other.CreateEphemeral(ctx, "/shared", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	// As if rz had made /shared on an old session that expired, and other
	// made it again since: same path, same version 0.
	if err := rz.DeleteOwn(ctx, "/shared", 0, rz.SessionID()+1); err != nil {
		t.Fatal(err)
	}
	if ok, st, err := rz.Exists(ctx, "/shared"); err != nil || !ok || st.EphemeralOwner != other.SessionID() {
		t.Fatalf("after DeleteOwn for a session we no longer hold: exists=%v %+v %v; want the other session's znode untouched", ok, st, err)
	}
	if err := other.DeleteOwn(ctx, "/shared", 0, other.SessionID()); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := rz.Exists(ctx, "/shared"); err != nil || ok {
		t.Fatalf("after DeleteOwn by its own session: exists=%v %v; want it gone", ok, err)
	}
}
