package electiontest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// CloseAtRandomLeavesNothing starts five candidates of one recipe, each on
// its own session, through a proxy that adds latency to every answer, and
// closes them at random moments: a quarter right after they start, the
// rest while they race to create, wait or lead. Close can then cut a create
// short on its way to the server. With every monitor closed and every
// session still open, nothing of theirs may be left in ZooKeeper: a znode
// left behind would keep the others waiting for a leader that has gone
// (single-file), or stand in line for nobody (sequential), until its
// session ends. at(path) starts a candidate at a fresh path each round;
// znodes lists what stands at that path.
func CloseAtRandomLeavesNothing(t *testing.T, cluster *zktest.Cluster, rounds int, at func(path string) NewMonitor,
	znodes func(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) ([]string, error)) {
	t.Helper()
	const n, latency = 5, 2 * time.Millisecond
	proxy := zktest.NewProxy(t, cluster.Server(0))
	proxy.SetReplyLatency(latency)
	sessions := make([]*recoverable.RecoverableZookeeper, n)
	for i := range sessions {
		sessions[i] = Connect(t, []string{proxy.Addr()}, 10*time.Second, named(t, "candidate", i))
	}
	observer := Connect(t, cluster.Servers(), 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rounds)*5*time.Second)
	defer cancel()
	left := 0
	for r := range rounds {
		path := fmt.Sprintf("/close-at-random/%d/leader", r)
		var wg sync.WaitGroup
		for i, rz := range sessions {
			m, err := at(path)(rz, zktest.NewListener(fmt.Sprintf("c%d", i)))
			if err != nil {
				t.Fatal(err)
			}
			var wait time.Duration
			if rand.IntN(4) > 0 {
				wait = rand.N(10 * latency)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(wait)
				m.Close()
			}()
		}
		wg.Wait()
		// Close has returned: whatever a candidate left is in ZooKeeper
		// now, or on its way behind a create given up on. Give those the
		// proxy's latency many times over, then look.
		time.Sleep(50 * latency)
		if err := observer.Sync(ctx, "/"); err != nil {
			t.Fatal(err)
		}
		found, err := znodes(ctx, observer, path)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) > 0 {
			left++
			t.Errorf("round %d: %v left behind by closed candidates on live sessions", r, found)
		}
	}
	t.Logf("%d rounds of random closes, %d left something behind", rounds, left)
}
