package nodemonitor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// An operator deletes the whole election path (zkCli deleteall /election).
// The leader stops at once; everyone joins again under a recreated path,
// and one leads, with no znode left over.
func TestOperatorDeletingTheElectionPath(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) { operatorDeletesElectionPath(t, cluster) })
	}
}

func operatorDeletesElectionPath(t *testing.T, cluster *zktest.Cluster) {
	cands := electiontest.Spawn(t, cluster.Servers(), 3, seq())
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
	t.Parallel()
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) { sessionExpiryRejoins(t, cluster) })
	}
}

func sessionExpiryRejoins(t *testing.T, cluster *zktest.Cluster) {
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := electiontest.Connect(t, []string{proxy.Addr()}, time.Second)
	l := zktest.NewListener("expiring")
	m, err := nodemonitor.New(rz, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	electiontest.Eventually(t, 10*time.Second, "it leads", l.Speaking)
	other := electiontest.Spawn(t, cluster.Servers(), 1, seq())[0]
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
	t.Parallel()
	cluster := zktest.Start(t, 1)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) {
			path := fmt.Sprintf("/expiry-%d", rep)
			electiontest.LostCreateAcrossExpiry(t, cluster, seq(nodemonitor.WithPath(path)), path+"/",
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

// The paused leader's clock runs out, then the connection comes back before
// the server expired the session (it may: the server rounds expiry up to a
// tick, and our clock keeps a margin). Our znode still leads, so we must
// look again and speak, or the election stalls: nobody else can lead while
// our znode is first. Whether the session survives is a race, so the
// scenario is tried until it has survived electiontest.Reps() times.
func TestPauseClockRanOutButTheSessionSurvived(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	want, tries := electiontest.Reps(), 10*electiontest.Reps()
	survived := 0
	for try := 0; try < tries && survived < want; try++ {
		if pauseClockThenSameSession(t, cluster, try) {
			survived++
		}
	}
	if survived < want {
		t.Fatalf("the session survived the pause clock %d times in %d tries, want %d: the test proved too little", survived, tries, want)
	}
}

// pauseClockThenSameSession reports false when the session expired after
// all, and the try proved nothing.
func pauseClockThenSameSession(t *testing.T, cluster *zktest.Cluster, try int) bool {
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := electiontest.Connect(t, []string{proxy.Addr()}, 2*time.Second)
	defer rz.Close()
	l := zktest.NewListener("paused")
	m, err := nodemonitor.New(rz, l, nodemonitor.WithPath(fmt.Sprintf("/survivor-%d", try)),
		nodemonitor.WithPolicy(nodemonitor.AtLeastOne))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	electiontest.Eventually(t, 10*time.Second, "it leads", l.Speaking)
	session := rz.SessionID()

	proxy.Cut()
	electiontest.WaitStatus(t, m, 5*time.Second, "the pause clock runs out", func(s nodemonitor.Status) bool {
		return s.State == nodemonitor.StateInactive
	})
	proxy.Heal()
	electiontest.Eventually(t, 10*time.Second, "it reconnects", func() bool {
		return rz.State().State == recoverable.StateConnected
	})
	if rz.SessionID() != session {
		return false // expired after all: it rejoins, but that is not this test
	}
	electiontest.Eventually(t, 5*time.Second, "it speaks again on the session that survived", l.Speaking)
	return true
}

// At-most-one without a fence can write after its successor: a delete that
// lands while the confirm's answer is on its way back (see
// electiontest.ConfirmOvertakenByDelete). The fence, on by default in the
// speaker command, refuses that line.
func TestDeleteOvertakesAConfirm(t *testing.T) {
	t.Parallel()
	electiontest.FenceClosesTheWindow(t, zktest.Start(t, 1), func(path string) electiontest.NewMonitor { return seq(nodemonitor.WithPath(path)) })
}

// Closed at random moments, as they join, candidates leave no node behind
// (electiontest.CloseAtRandomLeavesNothing).
func TestCloseAtRandomLeavesNoNode(t *testing.T) {
	t.Parallel()
	electiontest.CloseAtRandomLeavesNothing(t, zktest.Start(t, 1), 40,
		func(path string) electiontest.NewMonitor { return seq(nodemonitor.WithPath(path)) },
		func(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) ([]string, error) {
			children, err := rz.Children(ctx, path)
			if errors.Is(err, zk.ErrNoNode) {
				return nil, nil // never made: nobody got as far as joining
			}
			return children, err
		})
}
