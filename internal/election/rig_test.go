package election

import (
	"context"
	"log/slog"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// rig is one candidate on a fake session, with a fake recipe and listener,
// and the statuses it publishes.
type rig struct {
	t        *testing.T
	s        *fakeSession
	r        *fakeRecipe
	l        *fakeListener
	c        *Candidate
	statuses <-chan Status
	// unobserve stops reading the statuses: Close waits up to a second
	// for an observer that does not read.
	unobserve context.CancelFunc
}

const (
	ours   int64 = 0x10 // our session
	theirs int64 = 0x20 // another candidate's
	node1        = "/election/n_0000000001"
	node2        = "/election/n_0000000002"
)

// newRig starts a candidate under policy with listener l (a fakeListener
// when nil); it is closed when the test ends. It has no session yet.
func newRig(t *testing.T, policy Policy, l Listener) *rig {
	t.Helper()
	g := &rig{t: t, s: newFakeSession(t), r: newFakeRecipe(t)}
	if l == nil {
		l = newFakeListener()
	}
	switch fl := l.(type) {
	case *fakeListener:
		g.l = fl
	case preparingListener:
		g.l = fl.fakeListener
	case actingListener:
		g.l = fl.fakeListener
	}
	g.c = Run(g.s, l, g.r, Config{Policy: policy, Logger: testLogger(t)})
	ctx, cancel := context.WithCancel(context.Background())
	g.statuses, g.unobserve = g.c.Observe(ctx), cancel
	t.Cleanup(func() {
		cancel()
		g.c.Close()
	})
	g.expect(StateInactive, "")
	return g
}

// connect hands the loop a new session.
func (g *rig) connect() {
	g.s.deliver(SessionEvent{State: SessionConnected, SessionID: ours, NewSession: true})
}

// join connects, and answers the first check with d.
func (g *rig) join(d Decision) {
	g.t.Helper()
	g.connect()
	g.r.check().answer(d, nil)
}

// lead joins as the leader on node1, with proof, and returns its watch.
func (g *rig) lead() chan zk.Event {
	g.t.Helper()
	wake := make(chan zk.Event, 1)
	g.join(leader(node1, wake, 7, time.Now()))
	g.expect(StateActive, "elected")
	g.heard("start")
	return wake
}

// expect reads the next status, which must be state, for the reason why.
func (g *rig) expect(state State, why string) Status {
	g.t.Helper()
	select {
	case s := <-g.statuses:
		if s.State != state || s.Why != why {
			g.t.Fatalf("status %v (%q), want %v (%q)", s.State, s.Why, state, why)
		}
		return s
	case <-time.After(5 * time.Second):
		g.t.Fatalf("no status; want %v (%q); state now %v", state, why, g.c.State())
		return Status{}
	}
}

// expectNode reads the next status, which must be a change of znode
// alone, inactive: the reason stays that of the last change of state.
func (g *rig) expectNode(node string) {
	g.t.Helper()
	select {
	case s := <-g.statuses:
		if s.State != StateInactive || s.Node != node {
			g.t.Fatalf("status %+v, want inactive on %s", s, node)
		}
	case <-time.After(5 * time.Second):
		g.t.Fatalf("no status; want inactive on %s", node)
	}
}

// settled waits until the loop lets go of its turn, once the test has seen
// the last effect of the last event it gave it: nothing else wakes the
// loop then, so it waits for an event, and Close finds it idle. (idle's
// own event would leave the loop busy with it for a moment.)
func (g *rig) settled() {
	g.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !g.c.turn.TryLock() {
		if time.Now().After(deadline) {
			g.t.Fatal("the loop never went back to waiting")
		}
		runtime.Gosched()
	}
	g.c.turn.Unlock()
}

// idle waits until the loop has finished with everything it took so far:
// it takes a session event only while it waits for the next one, and a
// "connecting" event changes nothing. It fails when the loop is busy (in
// a Check or a round trip the test has not answered).
func (g *rig) idle() {
	g.t.Helper()
	select {
	case g.s.events <- SessionEvent{State: SessionConnecting}:
	case <-time.After(5 * time.Second):
		g.t.Fatalf("the loop is busy; state %v", g.c.State())
	}
}

// heard checks what the listener was told since the last look, once the
// loop is idle.
func (g *rig) heard(want ...string) {
	g.t.Helper()
	g.idle()
	if got := g.l.heard(); !slices.Equal(got, want) {
		g.t.Fatalf("the listener heard %q, want %q", got, want)
	}
}

// bothPolicies runs f once per policy.
func bothPolicies(t *testing.T, f func(t *testing.T, p Policy)) {
	for _, p := range []Policy{AtMostOne, AtLeastOne} {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			f(t, p)
		})
	}
}

// testLogger logs to the test, at debug level.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
