package nodemonitor_test

import (
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
)

// Under at-least-one, with followers watching the children as the first
// article does, the successor's decision comes from a listing read without
// a sync: on a follower server that has not yet applied an operator's
// delete, that listing can still show a deleted candidate first. Nothing
// confirms an at-least-one leader's lines, so before it leads the engine
// syncs and reads its znode, on the successor's own connection. On a
// 3-server ensemble, where reads need the sync.
func TestAtLeastOneSyncsBeforeLeadingOnAChildrenListing(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	path := zktest.Path(t)
	opts := []nodemonitor.Option{nodemonitor.WithPath(path), nodemonitor.WithWatch(nodemonitor.WatchChildren), nodemonitor.WithPolicy(nodemonitor.AtLeastOne)}
	leader := electiontest.Spawn(t, cluster.Servers(), 1, seq(opts...))[0]
	electiontest.WaitStatus(t, leader.Monitor, 10*time.Second, "the first candidate leads", func(s nodemonitor.Status) bool { return s.State == nodemonitor.StateActive })

	proxy := zktest.NewProxy(t, cluster.Server(0))
	l := zktest.NewListener("successor")
	m, err := nodemonitor.New(zktest.Connect(t, []string{proxy.Addr()}, 4*time.Second), l, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	electiontest.WaitStatus(t, m, 10*time.Second, "the successor joins", func(s nodemonitor.Status) bool { return s.Node != "" })

	synced := proxy.NotifyReply(zktest.OpSync)
	leader.Leave()
	electiontest.WaitStatus(t, m, 10*time.Second, "the successor leads", func(s nodemonitor.Status) bool { return s.State == nodemonitor.StateActive })
	select {
	case <-synced:
	default:
		t.Fatal("the successor led on its children listing without a sync: a lagging server's listing could have made it leader")
	}
}
