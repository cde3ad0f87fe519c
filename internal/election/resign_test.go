package election

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Resign says what became of our znode, and the candidate acts on it. A
// delete that got no answer is asked about again, and only an answer
// decides: gone (nil), refused (ErrStillLeading: standing as before, a
// check at once), or nothing answered (ErrResignUnknown: silent, and
// standing again only after the rejoin pause, as after a resignation). A
// candidate that does not lead has nothing to resign.
func TestResignOutcomes(t *testing.T) {
	t.Parallel()
	lost := zk.ErrConnectionClosed
	for _, tc := range []struct {
		name   string
		leaves []error
		want   error // nil, ErrResignUnknown or ErrStillLeading
	}{
		{"deleted", nil, nil},
		{"answered on the second look", []error{lost, nil}, nil},
		{"never answered", []error{lost, lost}, ErrResignUnknown},
		{"refused", []error{zk.ErrNoAuth}, ErrStillLeading},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bothPolicies(t, func(t *testing.T, p Policy) {
				g := newRig(t, p, nil)
				g.lead()
				g.r.leaveWith(tc.leaves...)
				const rejoin = 100 * time.Millisecond
				asked := time.Now()
				err := g.c.Resign(context.Background(), rejoin)
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("Resign: %v, want %v", err, tc.want)
				}
				g.expect(StateInactive, "resigned")
				if tc.want == nil {
					g.expectNode("") // left the line
				}
				if tries := max(1, len(tc.leaves)); len(g.r.left()) != tries {
					t.Fatalf("%d deletes, want %d", len(g.r.left()), tries)
				}
				// It stands again: at once after a refusal, after the
				// pause otherwise.
				call := g.r.check()
				if waited := time.Since(asked); tc.want != ErrStillLeading && waited < rejoin {
					t.Fatalf("stood again after %v, within the rejoin pause of %v", waited, rejoin)
				}
				call.answer(leader(node1, make(chan zk.Event), 8, time.Now()), nil)
				g.expect(StateActive, "elected")
				g.heard("stop", "start")
			})
		})
	}
}

// Resign is refused by a candidate that does not lead, and ends with
// ErrClosed when Close comes while the delete waits for its answer.
func TestResignWithoutLeading(t *testing.T) {
	t.Parallel()
	bothPolicies(t, func(t *testing.T, p Policy) {
		g := newRig(t, p, nil)
		if err := g.c.Resign(context.Background(), 0); !errors.Is(err, ErrNothingToResign) {
			t.Fatalf("Resign before joining = %v, want ErrNothingToResign", err)
		}
		g.join(follower(node2, make(chan zk.Event)))
		g.expectNode(node2)
		if err := g.c.Resign(context.Background(), 0); !errors.Is(err, ErrNothingToResign) {
			t.Fatalf("Resign of a follower = %v, want ErrNothingToResign", err)
		}
		g.heard()
	})
	t.Run("closed mid-resign", func(t *testing.T) {
		t.Parallel()
		g := newRig(t, AtMostOne, nil)
		g.lead()
		g.r.leaveWith(errHold)
		resigned := make(chan error, 1)
		go func() { resigned <- g.c.Resign(context.Background(), 0) }()
		g.expect(StateInactive, "resigned") // silent before the delete goes out
		g.unobserve()
		g.c.Close()
		if err := <-resigned; !errors.Is(err, ErrClosed) {
			t.Fatalf("Resign cut short by Close = %v, want ErrClosed", err)
		}
	})
}
