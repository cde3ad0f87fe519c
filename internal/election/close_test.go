package election

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Close leaves exactly once, whatever the loop is doing. A loop waiting for
// its watch lets Close leave from the caller's goroutine, one hand-off
// sooner than waking the loop to do it; a loop in the middle of a Check, a
// SyncExists or its own watch is ended, and leaves on its way out, never
// beside Close. A leader stops speaking first.
func TestCloseLeavesOnceWhetherTheLoopIsIdleOrBusy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		policy     Policy
		fromCloser bool
		speaking   bool
		// busy brings the loop to where Close finds it.
		busy func(g *rig)
	}{
		{"idle follower", AtMostOne, true, false, func(g *rig) {
			g.join(follower(node2, make(chan zk.Event)))
			g.expectNode(node2)
			g.settled()
		}},
		{"idle leader", AtLeastOne, true, true, func(g *rig) {
			g.join(leader(node1, make(chan zk.Event), 7, time.Now()))
			g.expect(StateActive, "elected")
			if said := <-g.l.said; said != "start" {
				g.t.Fatalf("the listener heard %q, want start", said)
			}
			g.settled()
		}},
		{"mid-check", AtMostOne, false, false, func(g *rig) { g.connect(); g.r.check() }},
		{"mid-proof", AtLeastOne, false, false, func(g *rig) {
			g.join(leader(node1, make(chan zk.Event), 0, time.Time{}))
			g.s.sync(node1)
		}},
		{"mid-watch", AtMostOne, false, true, func(g *rig) {
			watching := make(chan struct{})
			g.join(Decision{Leader: true, Node: node1, Proof: Proof{Epoch: 1, Sent: time.Now()},
				Watch: func(ctx context.Context) (<-chan zk.Event, error) {
					close(watching)
					<-ctx.Done()
					return nil, ctx.Err()
				}})
			<-watching
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newRig(t, tc.policy, nil)
			tc.busy(g)
			g.l.heard() // what it was told on the way
			g.unobserve()
			start := time.Now()
			g.c.Close()
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("Close took %v; what the loop was doing must end with it", took)
			}
			leaves := g.r.left()
			if len(leaves) != 1 {
				t.Fatalf("Leave was called %d times, want exactly 1", len(leaves))
			}
			if fromCloser := leaves[0] == goroutineID(); fromCloser != tc.fromCloser {
				t.Errorf("Leave ran on Close's goroutine: %v, want %v", fromCloser, tc.fromCloser)
			}
			if st := g.c.State(); st != StateClosed {
				t.Errorf("state after Close = %v, want %v", st, StateClosed)
			}
			if got := g.l.heard(); tc.speaking != (len(got) == 1 && got[0] == "stop") || !tc.speaking && len(got) > 0 {
				t.Errorf("the listener heard %q on Close; speaking before: %v", got, tc.speaking)
			}
			select {
			case <-g.c.Done():
			default:
				t.Error("Done is open after Close")
			}
			if err := g.c.Resign(context.Background(), 0); !errors.Is(err, ErrClosed) {
				t.Errorf("Resign after Close = %v, want ErrClosed", err)
			}
			g.c.Close() // a second Close is harmless
		})
	}
}

// A candidate closed before it ever had a session has nothing to delete;
// one whose owner closed the session first has nothing left to delete
// either: that close took its znode. Neither calls Leave, and a leader
// stops speaking, the loop ending on its own.
func TestNothingToLeaveWithoutASession(t *testing.T) {
	t.Parallel()
	t.Run("never connected", func(t *testing.T) {
		t.Parallel()
		g := newRig(t, AtMostOne, nil)
		g.c.Close()
		if n := len(g.r.left()); n != 0 {
			t.Fatalf("Leave called %d times without a session", n)
		}
	})
	bothPolicies(t, func(t *testing.T, p Policy) {
		g := newRig(t, p, nil)
		g.lead()
		g.s.deliver(SessionEvent{State: SessionClosed})
		g.expect(StateInactive, "closed")
		select {
		case <-g.c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the loop goes on after its session was closed")
		}
		if got := g.l.heard(); len(got) != 1 || got[0] != "stop" {
			t.Fatalf("the listener heard %q, want [stop]", got)
		}
		if err := g.c.Err(); err != nil {
			t.Fatalf("Err = %v after the owner closed the session, want nil", err)
		}
		g.expect(StateClosed, "closed")
		g.c.Close()
		if n := len(g.r.left()); n != 0 {
			t.Fatalf("Leave called %d times after the session was closed", n)
		}
	})
}
