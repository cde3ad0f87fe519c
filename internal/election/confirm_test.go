package election

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Confirm proves with one SyncExists that our znode is there and ours, and
// returns its czxid and when the request went out, not when the answer
// came. Anything else is ErrNotLeader: an error, a znode gone or owned by
// another session, an answer that comes after the caller's deadline, a
// candidate that is not active (no round trip then).
func TestConfirm(t *testing.T) {
	t.Parallel()
	sent := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		name   string
		answer *syncAnswer // nil: held past the deadline
		ok     bool
	}{
		{"ours", &syncAnswer{znode: Znode{Exists: true, Czxid: 42, EphemeralOwner: ours}, sent: sent}, true},
		{"failed", &syncAnswer{sent: sent, err: zk.ErrConnectionClosed}, false},
		{"gone", &syncAnswer{sent: sent}, false},
		{"another session's", &syncAnswer{znode: Znode{Exists: true, Czxid: 42, EphemeralOwner: theirs}, sent: sent}, false},
		{"late", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bothPolicies(t, func(t *testing.T, p Policy) {
				g := newRig(t, p, nil)
				g.lead()
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				defer cancel()
				type result struct {
					epoch int64
					at    time.Time
					err   error
				}
				done := make(chan result, 1)
				go func() {
					e, at, err := g.c.Confirm(ctx)
					done <- result{e, at, err}
				}()
				call := g.s.sync(node1)
				if tc.answer != nil {
					call.answer(tc.answer.znode, tc.answer.sent, tc.answer.err)
				}
				r := <-done
				switch {
				case tc.ok && (r.err != nil || r.epoch != 42 || !r.at.Equal(sent)):
					t.Fatalf("Confirm = %d, %v, %v; want 42 and the request's own time %v", r.epoch, r.at, r.err, sent)
				case !tc.ok && !errors.Is(r.err, ErrNotLeader):
					t.Fatalf("Confirm = %v, want ErrNotLeader", r.err)
				case tc.answer == nil && !errors.Is(r.err, context.DeadlineExceeded):
					t.Fatalf("a late Confirm = %v, want its deadline", r.err)
				}
				g.heard() // a confirm changes nothing by itself
			})
		})
	}
	t.Run("not active", func(t *testing.T) {
		t.Parallel()
		g := newRig(t, AtMostOne, nil)
		g.lead()
		confirm := g.l.confirm()
		if _, _, err := confirm(context.Background()); err != nil { // the decision's proof
			t.Fatalf("first confirm: %v", err)
		}
		g.s.deliver(SessionEvent{State: SessionDisconnected, SessionID: ours})
		g.expect(StatePaused, "paused")
		// Neither asks ZooKeeper: a SyncExists would hold the test here,
		// since it answers none.
		for _, f := range []func(context.Context) (int64, time.Time, error){confirm, g.c.Confirm} {
			if _, _, err := f(context.Background()); !errors.Is(err, ErrNotLeader) {
				t.Fatalf("confirm while paused = %v, want ErrNotLeader", err)
			}
		}
		g.heard("stop")
	})
}

// Under at-least-one a decision to lead that came without proof is proven
// by one SyncExists before the listener hears of it, and not acted on when
// the proof fails: the candidate checks again. Under at-most-one the first
// confirm does that instead. A decision with its proof costs nothing more.
func TestUnprovenLead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		z    Znode
		err  error
	}{
		{"ours", Znode{Exists: true, Czxid: 5, EphemeralOwner: ours}, nil},
		{"gone", Znode{}, nil},
		{"another session's", Znode{Exists: true, Czxid: 5, EphemeralOwner: theirs}, nil},
		{"failed", Znode{}, zk.ErrConnectionClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bothPolicies(t, func(t *testing.T, p Policy) {
				g := newRig(t, p, nil)
				g.join(leader(node1, make(chan zk.Event), 0, time.Time{}))
				if p == AtMostOne {
					g.expect(StateActive, "elected")
					g.heard("start")
					return
				}
				sent := time.Now()
				g.s.sync(node1).answer(tc.z, sent, tc.err)
				if tc.err == nil && tc.z.EphemeralOwner == ours {
					g.expect(StateActive, "elected")
					g.heard("start")
					return
				}
				// Not elected: the next check, after a backoff, decides.
				g.r.check().answer(follower(node1, make(chan zk.Event)), nil)
				g.expectNode(node1)
				g.heard()
			})
		})
	}
}

// A candidate that ZooKeeper refuses by the ACL before it ever joined
// gives up: Done closes and Err says why. Once it has been in the
// election, the same refusal is one more failure to retry.
func TestRefusedByTheACL(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		g := newRig(t, p, nil)
		g.connect()
		g.r.check().answer(Decision{}, zk.ErrNoAuth)
		select {
		case <-g.c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("a refused candidate goes on")
		}
		if err := g.c.Err(); !errors.Is(err, ErrNotAllowed) || !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("Err = %v, want ErrNotAllowed wrapping ErrNoAuth", err)
		}
		g.expect(StateClosed, "closed")
	})
	t.Run("after joining", func(t *testing.T) {
		t.Parallel()
		g := newRig(t, AtMostOne, nil)
		wake := make(chan zk.Event, 1)
		g.join(follower(node2, wake))
		g.expectNode(node2)
		wake <- zk.Event{Type: zk.EventNodeDeleted, Path: node1}
		g.r.check().answer(Decision{}, zk.ErrNoAuth)
		g.r.check().answer(follower(node2, make(chan zk.Event)), nil)
		if err := g.c.Err(); err != nil {
			t.Fatalf("Err = %v while it runs", err)
		}
		g.heard()
	})
}
