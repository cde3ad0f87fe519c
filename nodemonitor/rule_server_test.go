package nodemonitor

import (
	"context"
	"fmt"
	"path"
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// A Rule other than the default, end to end on a real server: two readers
// of a shared lock lead at once, a writer behind them waits, and so does a
// reader behind the writer. Every waiter watches exactly one znode, and
// every departure wakes exactly one candidate: no herd.
func TestANonDefaultRuleLetsTwoLeadWithoutAHerd(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	at := zktest.Path(t)
	var cands []*electiontest.Candidate
	for _, r := range []Rule{reader{}, reader{}, writer{}, reader{}} {
		newMonitor := func(rz *recoverable.RecoverableZookeeper, l election.Listener) (electiontest.Monitor, error) {
			return New(rz, l, WithPath(at), WithRule(r))
		}
		cands = append(cands, electiontest.Spawn(t, cluster.Servers(), 1, newMonitor)...)
	}
	leaders := func(want ...int) {
		t.Helper()
		electiontest.Eventually(t, 10*time.Second, fmt.Sprint("candidates ", want, " lead"), func() bool {
			return slices.Equal(electiontest.Speakers(cands), want)
		})
	}
	node := func(i int) string { return cands[i].Monitor.Node() }
	leaders(0, 1)
	watches(t, cluster.Server(0), at, cands, map[int]string{0: node(0), 1: node(1), 2: node(1), 3: node(2)})

	// The second reader goes: only the writer, which watched it, wakes, and
	// waits for the first.
	before := electiontest.Notifications(cands)
	cands[1].Leave()
	electiontest.Eventually(t, 5*time.Second, "the writer is woken", func() bool { return cands[2].Monitor.Notifications() == 1 })
	watches(t, cluster.Server(0), at, cands, map[int]string{0: node(0), 2: node(0), 3: node(2)})
	leaders(0)
	cands[0].Leave()
	leaders(2)
	cands[2].Leave()
	leaders(3)
	if woken := electiontest.Notifications(cands) - before; woken != 3 {
		t.Errorf("three departures woke candidates %d times, want 3: one each", woken)
	}
	if cands[3].Listener.Terms() != 1 || cands[3].Monitor.Notifications() != 1 {
		t.Errorf("the last reader: %d terms, %d notifications; want 1 and 1", cands[3].Listener.Terms(), cands[3].Monitor.Notifications())
	}
}

// watches waits until each candidate's session watches exactly the znode
// want names for it, under at, on the server addr, and fails the test with
// what the server says if it does not.
func watches(t *testing.T, addr, at string, cands []*electiontest.Candidate, want map[int]string) {
	t.Helper()
	var got map[int][]string
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		bySession, err := fourletter.Watches(ctx, addr)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		got = map[int][]string{}
		ok := true
		for i, c := range cands {
			for _, p := range bySession[c.ZK.SessionID()] {
				if path.Dir(p) == at {
					got[i] = append(got[i], p)
				}
			}
			w, wanted := want[i]
			ok = ok && (wanted && slices.Equal(got[i], []string{w}) || !wanted && len(got[i]) == 0)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("watches by candidate: %v; want %v", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
