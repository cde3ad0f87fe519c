package nodemonitor_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/electiontest"
	"zkspeaker/internal/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// An operator deletes the whole election path (zkCli deleteall /election).
// The leader stops at once; everyone joins again under a recreated path,
// and one leads, with no znode left over.
func TestOperatorDeletingTheElectionPath(t *testing.T) {
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) { operatorDeletesElectionPath(t, cluster) })
	}
}

func operatorDeletesElectionPath(t *testing.T, cluster *zktest.Cluster) {
	cands := electiontest.Spawn(t, cluster.Servers(), 3, nodemonitor.New)
	leader := electiontest.OneLeader(t, cands, 0)
	operator := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// zkCli's deleteall deletes the children, then the path; the
	// candidates rejoin in between, so it may have to try again. A multi
	// makes each try all or nothing.
	for {
		children, err := operator.Children(ctx, nodemonitor.DefaultPath)
		if err != nil {
			t.Fatal(err)
		}
		var ops []any
		for _, c := range children {
			ops = append(ops, &zk.DeleteRequest{Path: nodemonitor.DefaultPath + "/" + c, Version: -1})
		}
		ops = append(ops, &zk.DeleteRequest{Path: nodemonitor.DefaultPath, Version: -1})
		if _, err = operator.Conn().Multi(ops...); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("could not delete the election path: %v", err)
		}
	}
	electiontest.Eventually(t, 5*time.Second, "the old leader stops or wins again", func() bool {
		return !cands[leader].Listener.Speaking() || cands[leader].Listener.Terms() > 1
	})
	electiontest.OneLeader(t, cands, 300*time.Millisecond)
	electiontest.Eventually(t, 10*time.Second, "three candidates again", func() bool {
		c, err := operator.Children(ctx, nodemonitor.DefaultPath)
		return err == nil && len(c) == 3
	})
}

// A candidate whose session expires goes inactive, then joins again on the
// new session that go-zookeeper opens; its old znode is gone with the old
// session, and no second one is left.
func TestSessionExpiryRejoins(t *testing.T) {
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) { sessionExpiryRejoins(t, cluster) })
	}
}

func sessionExpiryRejoins(t *testing.T, cluster *zktest.Cluster) {
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := electiontest.Connect(t, []string{proxy.Addr()}, time.Second)
	l := zktest.NewListener("expiring")
	m, err := nodemonitor.New(rz, l, nodemonitor.WithLogger(zktest.Logger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	electiontest.Eventually(t, 10*time.Second, "it leads", l.Speaking)
	other := electiontest.Spawn(t, cluster.Servers(), 1, nodemonitor.New)[0]
	oldNode, oldSession := m.Node(), rz.SessionID()

	proxy.Cut()
	electiontest.Eventually(t, 5*time.Second, "it stops speaking once cut off", func() bool { return !l.Speaking() })
	electiontest.Eventually(t, 10*time.Second, "the other candidate takes over", other.Listener.Speaking)
	time.Sleep(2 * rz.SessionTimeout())
	proxy.Heal()

	electiontest.Eventually(t, 15*time.Second, "it rejoins on a new session", func() bool {
		return rz.SessionID() != oldSession && m.Node() != "" && m.Node() != oldNode
	})
	if m.State() != nodemonitor.StateInactive || l.Speaking() {
		t.Fatalf("after rejoining: %v, speaking %v; want an inactive follower", m.State(), l.Speaking())
	}
	operator := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	children, err := operator.Children(ctx, nodemonitor.DefaultPath)
	if err != nil || len(children) != 2 {
		t.Fatalf("children %v (%v), want exactly the two live candidates", children, err)
	}
}

// A create whose reply is lost, then an outage longer than the session (see
// electiontest.LostCreateAcrossExpiry): one znode, ours, and we lead.
func TestLostCreateReplyAcrossSessionExpiry(t *testing.T) {
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) {
			path := fmt.Sprintf("/expiry-%d", rep)
			electiontest.LostCreateAcrossExpiry(t, cluster, nodemonitor.New, path, path+"/",
				func(ctx context.Context, rz *recoverable.RecoverableZookeeper) ([]string, error) {
					children, err := rz.Children(ctx, path)
					for i, c := range children {
						children[i] = path + "/" + c
					}
					return children, err
				})
		})
	}
}
