package election

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// A candidate joins on its first session and waits in line; the watch on
// the one ahead wakes it, and a check that says it leads makes it speak.
// Under at-most-one its listener gets a confirm, whose first call answers
// with the decision's own proof, without a round trip; under at-least-one
// it gets none.
func TestJoinsFollowsAndLeads(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		g := newRig(t, p, nil)
		wake := make(chan zk.Event, 1)
		g.join(follower(node2, wake))
		g.expectNode(node2)
		g.heard()
		wake <- zk.Event{Type: zk.EventNodeDeleted, Path: node1}
		sent := time.Now().Add(-time.Second)
		g.r.check().answer(leader(node2, make(chan zk.Event), 9, sent), nil)
		g.expect(StateActive, "elected")
		g.heard("start")
		if n := g.c.Notifications(); n != 1 {
			t.Errorf("%d notifications, want 1", n)
		}
		confirm := g.l.confirm()
		if p == AtLeastOne {
			if confirm != nil {
				t.Fatal("an at-least-one leader got a confirm")
			}
			return
		}
		epoch, at, err := confirm(context.Background())
		if err != nil || epoch != 9 || !at.Equal(sent) {
			t.Fatalf("first confirm = %d, %v, %v; want the decision's proof 9, %v", epoch, at, err, sent)
		}
		g.quiet()
	})
}

// A leader stops when it learns it no longer leads: its session expired,
// its znode was deleted (it stops before asking anything), another
// candidate leads, or its znode was replaced (a new term, after the old
// one ends). A watch that ends with its session does nothing by itself.
func TestLeaderStops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lose func(g *rig, wake chan zk.Event)
	}{
		{"expired", func(g *rig, _ chan zk.Event) {
			g.s.deliver(SessionEvent{State: SessionExpired, SessionID: ours})
			g.expect(StateInactive, "expired")
			g.heard("stop")
			g.connect() // go-zookeeper's new session joins again
			g.r.check().answer(follower(node2, make(chan zk.Event)), nil)
			g.expectNode(node2)
		}},
		{"our znode deleted", func(g *rig, wake chan zk.Event) {
			wake <- zk.Event{Type: zk.EventNodeDeleted, Path: node1}
			call := g.r.check()
			if said := g.l.heard(); g.c.State() != StateInactive || len(said) != 1 || said[0] != "stop" {
				g.t.Fatalf("%v, the listener heard %q, while it asks who leads; want inactive, stopped", g.c.State(), said)
			}
			g.expect(StateInactive, "deleted")
			call.answer(follower(node2, make(chan zk.Event)), nil)
			g.expectNode(node2)
		}},
		{"another leads", func(g *rig, wake chan zk.Event) {
			wake <- zk.Event{Type: zk.EventNodeChildrenChanged, Path: "/election"}
			g.r.check().answer(follower(node1, make(chan zk.Event)), nil)
			g.expect(StateInactive, "lost")
			g.heard("stop")
		}},
		{"replaced", func(g *rig, wake chan zk.Event) {
			wake <- zk.Event{Type: zk.EventNodeChildrenChanged, Path: "/election"}
			g.r.check().answer(leader(node2, make(chan zk.Event), 8, time.Now()), nil)
			g.expect(StateInactive, "deleted")
			g.expect(StateActive, "elected")
			g.heard("stop", "start")
		}},
		{"not watching", func(g *rig, wake chan zk.Event) {
			wake <- zk.Event{Type: zk.EventNotWatching, Path: node1}
			g.quiet()
			if g.c.State() != StateActive {
				g.t.Fatalf("state %v after the watch ended, want active", g.c.State())
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bothPolicies(t, func(t *testing.T, p Policy) {
				g := newRig(t, p, nil)
				tc.lose(g, g.lead())
				g.quiet()
			})
		})
	}
}

// A leader told to prepare by its decision is told, when its watch fires,
// to get ready during the check's round trip, and told to undo it when the
// check decides otherwise.
func TestFollowerPreparesAndUnprepares(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		l := newFakeListener()
		g := newRig(t, p, preparingListener{l})
		wake := make(chan zk.Event, 1)
		g.join(Decision{Node: node2, Wake: wake, Prepare: true})
		g.expectNode(node2)
		wake <- zk.Event{Type: zk.EventNodeDeleted, Path: node1}
		call := g.r.check()
		select {
		case said := <-l.said:
			if said != "prepare" {
				t.Fatalf("the listener heard %q before the check, want prepare", said)
			}
		default: // it prepares before the check goes out
			t.Fatal("the listener was not told to prepare before the check")
		}
		call.answer(follower(node2, make(chan zk.Event)), nil)
		g.heard("unprepare")
	})
}

// A new leader whose listener says when it acted sets the watch on its own
// znode only after its first act, off the failover's path.
func TestNewLeaderWatchesAfterItsFirstAct(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		l := actingListener{newFakeListener(), make(chan struct{})}
		g := newRig(t, p, l)
		watched := make(chan struct{}, 1)
		g.join(Decision{Leader: true, Node: node1, Proof: Proof{Epoch: 1, Sent: time.Now()},
			Watch: func(context.Context) (<-chan zk.Event, error) {
				watched <- struct{}{}
				return make(chan zk.Event), nil
			}})
		g.expect(StateActive, "elected")
		g.heard("start")
		select {
		case <-watched:
			t.Fatal("the watch went out before the first act")
		default:
		}
		close(l.acted)
		select {
		case <-watched:
		case <-time.After(5 * time.Second):
			t.Fatal("no watch after the first act")
		}
	})
}

// quiet checks that the loop is idle, not in a check or a round trip, and
// told the listener nothing since the last look.
func (g *rig) quiet() {
	g.t.Helper()
	g.heard()
}
