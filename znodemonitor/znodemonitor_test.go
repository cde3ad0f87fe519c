package znodemonitor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// single starts single-file candidates with opts, for electiontest.
func single(opts ...znodemonitor.Option) electiontest.NewMonitor {
	return func(rz *recoverable.RecoverableZookeeper, l nodemonitor.Listener) (electiontest.Monitor, error) {
		return znodemonitor.New(rz, l, opts...)
	}
}

func TestExactlyOneLeaderAmongFive(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	cands := electiontest.Spawn(t, cluster.Servers(), 5, single())
	leader := electiontest.OneLeader(t, cands, 500*time.Millisecond)
	if leader != 0 {
		t.Fatalf("candidate %d leads, want the first, which created the znode", leader)
	}
	// Each handover goes to one of those left, and only one.
	left := cands
	for len(left) > 1 {
		left[leader].Leave()
		left = append(append([]*electiontest.Candidate(nil), left[:leader]...), left[leader+1:]...)
		leader = electiontest.OneLeader(t, left, 200*time.Millisecond)
	}
}

func TestSingleFileWakesEveryWaiter(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	const n = 5
	cands := electiontest.Spawn(t, cluster.Servers(), n, single())
	electiontest.OneLeader(t, cands, 0)
	before := electiontest.Notifications(cands[1:])
	cands[0].Leave()
	electiontest.OneLeader(t, cands[1:], 300*time.Millisecond)
	if woken := electiontest.Notifications(cands[1:]) - before; woken < n-1 {
		t.Fatalf("%d notifications, want all %d waiters woken (the herd)", woken, n-1)
	}
}

func TestOperatorDeletingTheZnode(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	cands := electiontest.Spawn(t, cluster.Servers(), 3, single(znodemonitor.WithPath("/demo/speaker")))
	leader := electiontest.OneLeader(t, cands, 0)
	operator := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	old := cands[leader].Listener
	if err := operator.Delete(ctx, "/demo/speaker", -1); err != nil {
		t.Fatal(err)
	}
	// It stops at once; it may then win the new race, which is a new term.
	electiontest.Eventually(t, 5*time.Second, "the leader stops speaking", func() bool {
		return !old.Speaking() || old.Terms() == 2
	})
	// Someone leads again, on a fresh znode of its own session.
	now := electiontest.OneLeader(t, cands, 200*time.Millisecond)
	_, st, err := operator.Exists(ctx, "/demo/speaker")
	if err != nil || st == nil || st.EphemeralOwner != cands[now].ZK.SessionID() {
		t.Fatalf("znode owner %v (%v), want the new leader's session", st, err)
	}
}

// A create whose reply is lost, then an outage longer than the session (see
// electiontest.LostCreateAcrossExpiry): the znode is ours, and we lead.
func TestLostCreateReplyAcrossSessionExpiry(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) {
			path := fmt.Sprintf("/expiry-%d/speaker", rep)
			electiontest.LostCreateAcrossExpiry(t, cluster, single(znodemonitor.WithPath(path)), path,
				func(ctx context.Context, rz *recoverable.RecoverableZookeeper) ([]string, error) {
					ok, _, err := rz.Exists(ctx, path)
					if !ok {
						return nil, err
					}
					return []string{path}, err
				})
		})
	}
}

// Closed at random moments, as they race, candidates leave no znode behind
// (electiontest.CloseAtRandomLeavesNothing).
func TestCloseAtRandomLeavesNoZnode(t *testing.T) {
	t.Parallel()
	electiontest.CloseAtRandomLeavesNothing(t, zktest.Start(t, 1), 40,
		func(path string) electiontest.NewMonitor { return single(znodemonitor.WithPath(path)) },
		func(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) ([]string, error) {
			ok, _, err := rz.Exists(ctx, path)
			if !ok {
				return nil, err
			}
			return []string{path}, nil
		})
}
