package nodemonitor_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// seq starts sequential candidates with opts, for electiontest.
func seq(opts ...nodemonitor.Option) electiontest.NewMonitor {
	return func(rz *recoverable.RecoverableZookeeper, l nodemonitor.Listener) (electiontest.Monitor, error) {
		return nodemonitor.New(rz, l, opts...)
	}
}

func TestExactlyOneLeaderAmongFive(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	cands := electiontest.Spawn(t, cluster.Servers(), 5, seq())
	leader := electiontest.OneLeader(t, cands, 500*time.Millisecond)
	if leader != 0 {
		t.Fatalf("candidate %d leads, want the first to join (lowest sequence)", leader)
	}
	for i, c := range cands {
		if i != leader && c.Monitor.State() != nodemonitor.StateInactive {
			t.Fatalf("follower %d is %v", i, c.Monitor.State())
		}
	}
	// Handovers follow the line, one at a time.
	for next := 1; next < len(cands); next++ {
		cands[next-1].Leave()
		if got := electiontest.OneLeader(t, cands[next:], 200*time.Millisecond); got != 0 {
			t.Fatalf("after %d left, candidate %d leads, want %d", next-1, next+got, next)
		}
	}
}

func TestMiddleCandidateDeathElectsNobody(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	cands := electiontest.Spawn(t, cluster.Servers(), 3, seq())
	electiontest.OneLeader(t, cands, 0)
	before := cands[2].Monitor.Notifications()

	cands[1].Leave()
	electiontest.Eventually(t, 5*time.Second, "the last candidate is woken", func() bool {
		return cands[2].Monitor.Notifications() == before+1
	})
	// It now watches the leader, and stays a follower.
	if l := electiontest.OneLeader(t, cands, 300*time.Millisecond); l != 0 {
		t.Fatalf("candidate %d leads after a middle candidate died, want 0", l)
	}
	if cands[0].Listener.Terms() != 1 || cands[2].Listener.Terms() != 0 {
		t.Fatalf("terms: leader %d, last %d; want 1 and 0", cands[0].Listener.Terms(), cands[2].Listener.Terms())
	}
	// Woken, it got ready to lead during its check, and was told to let go
	// when the check said that it does not: a Speaker's file lock must not
	// keep the leader waiting.
	if p, u := cands[2].Listener.Prepares(); p != 1 || u != 1 {
		t.Fatalf("the woken follower was told to prepare %d and unprepare %d times, want 1 and 1", p, u)
	}
	cands[0].Leave()
	if l := electiontest.OneLeader(t, cands[2:], 0); l != 0 {
		t.Fatal("the last candidate did not take over from the leader it now watches")
	}
	// Woken again, it prepared and leads: what it prepared is its first line's.
	if p, u := cands[2].Listener.Prepares(); p != 2 || u != 1 {
		t.Fatalf("the successor was told to prepare %d and unprepare %d times in all, want 2 and 1", p, u)
	}
	if p, _ := cands[0].Listener.Prepares(); p != 0 {
		t.Fatalf("the first leader, never woken as a follower, was told to prepare %d times", p)
	}
}

func TestOperatorDeletingLeaderZnode(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) { operatorDeletesLeaderZnode(t, cluster) })
	}
}

func operatorDeletesLeaderZnode(t *testing.T, cluster *zktest.Cluster) {
	cands := electiontest.Spawn(t, cluster.Servers(), 3, seq())
	electiontest.OneLeader(t, cands, 0)
	operator := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	old := cands[0].Monitor.Node()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := operator.Delete(ctx, old, -1); err != nil {
		t.Fatal(err)
	}
	electiontest.Eventually(t, 5*time.Second, "the old leader stops", func() bool { return !cands[0].Listener.Speaking() })
	// The successor leads, and the old leader queues at the back.
	if l := electiontest.OneLeader(t, cands, 200*time.Millisecond); l != 1 {
		t.Fatalf("candidate %d leads after the operator deleted the leader's znode, want 1", l)
	}
	electiontest.Eventually(t, 5*time.Second, "the old leader rejoins", func() bool {
		n := cands[0].Monitor.Node()
		return n != "" && n != old
	})
	seq := func(p string) string { return p[strings.LastIndex(p, "_")+1:] }
	if seq(cands[0].Monitor.Node()) <= seq(cands[2].Monitor.Node()) {
		t.Fatalf("old leader rejoined as %s, not behind %s", cands[0].Monitor.Node(), cands[2].Monitor.Node())
	}
	children, err := operator.Children(ctx, nodemonitor.DefaultPath)
	if err != nil || len(children) != 3 {
		t.Fatalf("children = %v, %v; want 3 candidates and no leftover", children, err)
	}
}

func TestHerdEffect(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	for _, tc := range []struct {
		mode nodemonitor.WatchMode
		path string
	}{{nodemonitor.WatchPredecessor, "/herd-predecessor"}, {nodemonitor.WatchChildren, "/herd-children"}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			const n = 6
			cands := electiontest.Spawn(t, cluster.Servers(), n,
				seq(nodemonitor.WithPath(tc.path), nodemonitor.WithWatch(tc.mode)))
			electiontest.OneLeader(t, cands, 0)
			// Let the joins' own notifications settle before counting.
			time.Sleep(200 * time.Millisecond)
			before := electiontest.Notifications(cands[1:])
			cands[0].Leave()
			electiontest.OneLeader(t, cands[1:], 300*time.Millisecond)
			woken := electiontest.Notifications(cands[1:]) - before
			switch tc.mode {
			case nodemonitor.WatchPredecessor:
				if woken != 1 {
					t.Fatalf("predecessor watches: %d notifications for one failover, want exactly 1", woken)
				}
			case nodemonitor.WatchChildren:
				if woken < n-1 {
					t.Fatalf("children watches: %d notifications, want every one of the %d others woken", woken, n-1)
				}
			}
			t.Logf("%s: %d notifications for one failover among %d candidates", tc.mode, woken, n)
		})
	}
}

func TestIgnoresChildrenThatAreNotCandidates(t *testing.T) {
	t.Parallel()
	got := nodemonitor.Candidates([]string{
		"_c_0123456789abcdef0123456789abcdef-n_0000000010",
		"readme",
		"n_0000000002",
		"_c_ffffffffffffffffffffffffffffffff-n_0000000001",
		"n_12",
		"lock-0000000000",
	})
	var seqs []int64
	for _, c := range got {
		seqs = append(seqs, c.Seq)
	}
	if len(seqs) != 3 || seqs[0] != 1 || seqs[1] != 2 || seqs[2] != 10 {
		t.Fatalf("candidates by sequence = %v, want [1 2 10]", seqs)
	}
}

func TestAuthProtectsTheCandidates(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	const creds = "speaker:s3cret"
	auth, _ := recoverable.Access(creds) // the identity, and the ACL that names it
	rz, err := recoverable.Connect(cluster.Servers(), 2*time.Second, append(auth, recoverable.WithLogger(zktest.Logger(t)))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rz.Close)
	l := zktest.NewListener("guarded")
	m, err := nodemonitor.New(rz, l, nodemonitor.WithPath("/guarded/election"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	electiontest.Eventually(t, 10*time.Second, "the guarded candidate leads", l.Speaking)

	stranger := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stranger.Delete(ctx, m.Node(), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("delete without credentials = %v, want ErrNoAuth", err)
	}
	if _, err := stranger.Create(ctx, "/guarded/election/n_9999999999", nil, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("create of a fake candidate without credentials = %v, want ErrNoAuth", err)
	}
	// Anyone may still read, so status tools and zkCli can look.
	data, _, err := stranger.Get(ctx, m.Node())
	if err != nil || string(data) != "guarded" {
		t.Fatalf("read without credentials = %q, %v; want the candidate's name", data, err)
	}
	if !l.Speaking() {
		t.Fatal("the leader stopped speaking")
	}
}
