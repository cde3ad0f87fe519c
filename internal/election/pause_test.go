package election

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// A leader that loses its connection is paused: silent at once under
// at-most-one, still speaking under at-least-one. What ends the pause
// decides the rest: a reconnect whose check finds our znode first resumes
// (the listener is told to speak again, a no-op for one that never
// stopped); an expiry, or our own clock saying the session may have
// expired, makes it inactive; a reconnect whose check finds another
// leader makes it inactive too. While paused it cannot resign.
func TestPausedLeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// deadline makes the session's life end at once when set.
		deadline bool
		end      func(g *rig, p Policy)
	}{
		{"resumed", false, func(g *rig, _ Policy) {
			g.s.deliver(SessionEvent{State: SessionConnected, SessionID: ours})
			g.r.check().answer(leader(node1, make(chan zk.Event), 7, time.Now()), nil)
			g.expect(StateActive, "resumed")
			g.heard("start")
		}},
		{"expired", false, func(g *rig, _ Policy) {
			g.s.deliver(SessionEvent{State: SessionExpired, SessionID: ours})
			g.expect(StateInactive, "expired")
			g.heard("stop")
			g.connect()
			g.r.check().answer(follower(node2, make(chan zk.Event)), nil)
			g.expectNode(node2)
		}},
		{"outlived by our clock", true, func(g *rig, p Policy) {
			g.expect(StateInactive, "expired")
			if p == AtMostOne {
				g.heard("stop", "stop") // at the pause, and at its end
			} else {
				g.heard("stop")
			}
			// The servers were slower than our clock: the session lives,
			// and the reconnect looks again, with no watch left.
			g.s.alive(time.Now().Add(time.Hour))
			g.s.deliver(SessionEvent{State: SessionConnected, SessionID: ours})
			g.r.check().answer(leader(node1, make(chan zk.Event), 7, time.Now()), nil)
			g.expect(StateActive, "elected")
			g.heard("start")
		}},
		{"another leads after the reconnect", false, func(g *rig, _ Policy) {
			g.s.deliver(SessionEvent{State: SessionConnected, SessionID: ours})
			g.r.check().answer(follower(node1, make(chan zk.Event)), nil)
			g.expect(StateInactive, "lost")
			g.heard("stop")
		}},
		{"cannot resign", false, func(g *rig, _ Policy) {
			if err := g.c.Resign(context.Background(), 0); !errors.Is(err, ErrPausedResign) {
				g.t.Fatalf("Resign while paused = %v, want ErrPausedResign", err)
			}
			if g.c.State() != StatePaused {
				g.t.Fatalf("state %v after a refused resignation, want paused", g.c.State())
			}
		}},
		{"the reconnect's check fails", false, func(g *rig, _ Policy) {
			g.s.deliver(SessionEvent{State: SessionConnected, SessionID: ours})
			g.r.check().answer(Decision{}, zk.ErrConnectionClosed)
			// Still paused, and never told to speak meanwhile: it tries
			// again after a backoff.
			call := g.r.check()
			if st := g.c.State(); st != StatePaused {
				g.t.Fatalf("state %v after a failed check, want paused", st)
			}
			call.answer(leader(node1, make(chan zk.Event), 7, time.Now()), nil)
			g.expect(StateActive, "resumed")
			g.heard("start")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bothPolicies(t, func(t *testing.T, p Policy) {
				g := newRig(t, p, nil)
				g.lead()
				if tc.deadline {
					g.s.alive(time.Now())
				}
				g.s.deliver(SessionEvent{State: SessionDisconnected, SessionID: ours})
				g.expect(StatePaused, "paused")
				if p == AtMostOne && !tc.deadline { // else the pause may be over already
					g.heard("stop")
				}
				tc.end(g, p)
				g.heard()
			})
		})
	}
}

// A disconnect that reaches the loop after the same session got its
// connection back (the loop was busy meanwhile) pauses nobody: the
// reconnect is next in line.
func TestStaleDisconnectPausesNobody(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		g := newRig(t, p, nil)
		g.lead()
		g.s.setState(SessionEvent{State: SessionConnected, SessionID: ours})
		g.s.hand(SessionEvent{State: SessionDisconnected, SessionID: ours})
		g.heard()
		if st := g.c.State(); st != StateActive {
			t.Fatalf("state %v after a stale disconnect, want active", st)
		}
	})
}

// A check that gets no answer before the session may have expired fails
// at that deadline, and the candidate is not elected on it: it tries
// again, with backoff.
func TestCheckThatComesLateFails(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		g := newRig(t, p, nil)
		g.s.alive(time.Now().Add(200 * time.Millisecond))
		g.connect()
		call := g.r.check()
		select {
		case <-call.ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("a check without an answer outlives the session's deadline")
		}
		if !errors.Is(call.ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("the check ended with %v, want its deadline", call.ctx.Err())
		}
		call.answer(leader(node1, make(chan zk.Event), 7, time.Now()), nil) // too late: nobody reads it
		g.s.alive(time.Now().Add(time.Hour))
		g.r.check().answer(follower(node1, make(chan zk.Event)), nil)
		g.expectNode(node1)
		g.heard()
	})
}
