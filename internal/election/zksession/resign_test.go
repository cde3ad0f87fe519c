package zksession_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/election"
	"zkspeaker/internal/election/zksession"
	"zkspeaker/internal/testkit/zktest"
)

// leadingRecipe always leads, and answers each Leave with the next of its
// scripted errors (nil once they run out). It counts its Checks.
type leadingRecipe struct {
	mu     sync.Mutex
	leaves []error
	checks []time.Time
}

func (r *leadingRecipe) Check(context.Context) (election.Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks = append(r.checks, time.Now())
	return election.Decision{Leader: true, Node: "/resigning/n_0000000000", Wake: make(chan zk.Event)}, nil
}

func (r *leadingRecipe) Leave(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.leaves) == 0 {
		return nil
	}
	err := r.leaves[0]
	r.leaves = r.leaves[1:]
	return err
}

// checksSince returns how many Checks began at or after t.
func (r *leadingRecipe) checksSince(t time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.checks {
		if !c.Before(t) {
			n++
		}
	}
	return n
}

// Resign reports what happened to the znode, whatever the delete's answer
// was: a delete that got no answer is asked about again, and only an
// answer decides. When nothing answers, the outcome is unknown: the
// candidate stays silent and waits out the rejoin pause, since a successor
// may lead. A refusal leaves it standing as before, at once.
func TestResignSaysWhatHappened(t *testing.T) {
	t.Parallel()
	lost := zk.ErrConnectionClosed
	for _, tc := range []struct {
		name   string
		leaves []error
		want   error // nil, election.ErrResignUnknown or election.ErrStillLeading
	}{
		{"answered on the second look", []error{lost, nil}, nil},
		{"never answered", []error{lost, lost}, election.ErrResignUnknown},
		{"refused", []error{zk.ErrNoAuth}, election.ErrStillLeading},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const rejoin = 500 * time.Millisecond
			r := &leadingRecipe{leaves: tc.leaves}
			l := zktest.NewListener("x")
			c := election.Run(zksession.New(zktest.Connect(t, servers, 4*time.Second)), l, r, election.Config{Policy: election.AtMostOne, Logger: zktest.Logger(t)})
			t.Cleanup(c.Close)
			waitState(t, c, election.StateActive)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			asked := time.Now()
			err := c.Resign(ctx, rejoin)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Resign: %v, want %v", err, tc.want)
			}
			if tc.want == election.ErrStillLeading {
				waitState(t, c, election.StateActive) // standing as before: it leads again at once
				if n := r.checksSince(asked); n != 1 {
					t.Fatalf("%d checks after a refused resignation, want 1", n)
				}
				return
			}
			time.Sleep(rejoin / 2)
			if n := r.checksSince(asked); n != 0 || l.Speaking() {
				t.Fatalf("within the rejoin pause: %d checks, speaking %v; want none, silent", n, l.Speaking())
			}
			waitState(t, c, election.StateActive) // after the pause it stands again, and leads
		})
	}
}

// waitState waits until c is in state want.
func waitState(t *testing.T, c *election.Candidate, want election.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for s := range c.Observe(ctx) {
		if s.State == want {
			return
		}
	}
	t.Fatalf("never %v; now %v", want, c.State())
}
