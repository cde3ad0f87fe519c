package zksession_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/election"
	"zkspeaker/internal/election/zksession"
	"zkspeaker/internal/testkit/zktest"
)

// claimingRecipe always says that node leads, with proof or without, as a
// recipe's listing would: stale or fresh, the engine cannot tell from the
// decision alone. It counts its Checks.
type claimingRecipe struct {
	node  string
	proof election.Proof

	mu     sync.Mutex
	checks int
}

func (r *claimingRecipe) Check(context.Context) (election.Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks++
	return election.Decision{Leader: true, Node: r.node, Wake: make(chan zk.Event), Proof: r.proof}, nil
}

func (r *claimingRecipe) Leave(context.Context) error { return nil }

func (r *claimingRecipe) checked() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.checks
}

// syncSeer is a Listener that notes, when it is told to speak, whether a
// sync's answer had already come back through the proxy.
type syncSeer struct {
	*zktest.Listener
	synced <-chan struct{}

	mu          sync.Mutex
	syncedFirst bool
}

func (s *syncSeer) StartSpeaking(confirm func(context.Context) (int64, time.Time, error)) {
	s.mu.Lock()
	select {
	case <-s.synced:
		s.syncedFirst = true
	default:
	}
	s.mu.Unlock()
	s.Listener.StartSpeaking(confirm)
}

func (s *syncSeer) sawSyncFirst() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncedFirst
}

// Under at-least-one nothing confirms a leader's lines, so the decision to
// lead must rest on what the ZooKeeper leader has applied: a listing read
// from a server that lags (or read after its sync failed, on another
// connection) still shows our znode after an operator deleted it. A
// decision whose own requests prove nothing gets one sync and a read of
// our znode before the listener hears of it; a stale one is not acted on.
// A decision that comes with its proof (the sync before the listing) costs
// nothing more. On a 3-server ensemble, where reads need the sync.
func TestAtLeastOneLeadsOnlyOnWhatTheLeaderApplied(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	for _, tc := range []struct {
		name   string
		exists bool // our znode is there, on our session
		proven bool // the decision carries its proof
		leads  bool
		synced bool // a sync's answer came back before the listener was told
	}{
		{"stale: our znode is gone", false, false, false, false},
		{"unproven: our znode is there", true, false, true, true},
		{"proven by the listing's own sync", true, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy := zktest.NewProxy(t, cluster.Server(0))
			rz := zktest.Connect(t, []string{proxy.Addr()}, 4*time.Second)
			node := zktest.Path(t)
			if tc.exists {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if _, err := rz.CreateEphemeral(ctx, node, nil, zk.WorldACL(zk.PermAll)); err != nil {
					t.Fatal(err)
				}
			}
			r := &claimingRecipe{node: node}
			if tc.proven {
				r.proof = election.Proof{Epoch: 1, Sent: time.Now()}
			}
			l := &syncSeer{Listener: zktest.NewListener("x"), synced: proxy.NotifyReply(zktest.OpSync)}
			c := election.Run(zksession.New(rz), l, r, election.Config{Policy: election.AtLeastOne, Logger: zktest.Logger(t)})
			t.Cleanup(c.Close)
			if tc.leads {
				// The state turns active just before the listener is
				// told: wait for the listener.
				waitState(t, c, election.StateActive)
				deadline := time.Now().Add(10 * time.Second)
				for l.Terms() == 0 && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
			} else {
				deadline := time.Now().Add(10 * time.Second)
				for r.checked() < 2 && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
			}
			if l.Terms() > 0 != tc.leads {
				t.Fatalf("led %d times after %d checks; want leading: %v", l.Terms(), r.checked(), tc.leads)
			}
			if tc.leads && l.sawSyncFirst() != tc.synced {
				t.Fatalf("a sync answered before the listener was told to speak: %v, want %v", l.sawSyncFirst(), tc.synced)
			}
		})
	}
}
