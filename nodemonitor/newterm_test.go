package nodemonitor_test

import (
	"context"
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
)

// An operator deletes the leader's znode in the moment between the check
// that made it leader and its watch on its own znode. The watch finds the
// znode gone, the next check rejoins, alone, and leads again on a new
// znode: a new term. The listener must hear of it as one, stopped and
// started again, so that a lock holder is told it lost the lock and a
// speaker takes the new epoch, rather than go on under the old term.
func TestLeaderZnodeDeletedBeforeItsOwnWatchStartsANewTerm(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	path := zktest.Path(t)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := electiontest.Connect(t, []string{proxy.Addr()}, 4*time.Second)
	operator := electiontest.Connect(t, cluster.Servers(), 4*time.Second)
	l := zktest.NewListener("alone")
	listed, release := proxy.HoldReply(faultproxy.OpGetChildren2)
	defer release()
	m, err := nodemonitor.New(rz, l, nodemonitor.WithPath(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	select {
	case <-listed:
	case <-time.After(10 * time.Second):
		t.Fatal("the candidate never listed the election")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	children, err := operator.Children(ctx, path)
	if err != nil || len(children) != 1 {
		t.Fatalf("election %v (%v), want the one candidate", children, err)
	}
	first := path + "/" + children[0]
	if err := operator.Delete(ctx, first, -1); err != nil {
		t.Fatal(err)
	}
	release()

	electiontest.Eventually(t, 10*time.Second, "it leads on a new znode", func() bool {
		n := m.Node()
		return n != "" && n != first && m.State() == nodemonitor.StateActive
	})
	electiontest.Eventually(t, 5*time.Second, "the listener is told of the new term", func() bool { return l.Terms() == 2 && l.Speaking() })
}
