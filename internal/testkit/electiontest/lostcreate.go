package electiontest

import (
	"context"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// LostCreateAcrossExpiry runs one candidate of newMonitor through a proxy that drops the reply to its first create under trap and then
// refuses connections for three session timeouts. The session expires while
// the client still waits, and go-zookeeper sends the create's retry on the
// new session. Afterwards the candidate must lead on the new session with
// exactly one znode, owned by that session: a second znode of a live
// session would stand in the line for nobody. znodes lists the election's
// znodes by full path.
func LostCreateAcrossExpiry(t *testing.T, cluster *zktest.Cluster, newMonitor NewMonitor, trap string,
	znodes func(context.Context, *recoverable.RecoverableZookeeper) ([]string, error)) {
	t.Helper()
	proxy := zktest.NewProxy(t, cluster.Server(0))
	// Two seconds, not one: the engine bounds each check by the session's
	// life, and on a busy machine (make test runs many servers at once) a
	// round trip that takes most of a one-second session fails every
	// check after the reconnect, so that the candidate never rejoins.
	rz := Connect(t, []string{proxy.Addr()}, 2*time.Second)
	oldSession := rz.SessionID()
	proxy.RefuseAfterCreate(trap)
	l := zktest.NewListener("late")
	m, err := newMonitor(rz, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	select {
	case <-proxy.Fired():
	case <-time.After(10 * time.Second):
		t.Fatal("the create's reply was never dropped: the test proved nothing")
	}
	time.Sleep(3 * rz.SessionTimeout())
	proxy.Restore()

	Eventually(t, 15*time.Second, "it leads on a new session", func() bool {
		return l.Speaking() && rz.SessionID() != oldSession
	})
	operator := Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nodes, err := znodes(ctx, operator)
	if err != nil || len(nodes) != 1 || nodes[0] != m.Node() {
		t.Fatalf("election znodes %v (%v), want only ours, %s", nodes, err, m.Node())
	}
	_, st, err := operator.Exists(ctx, m.Node())
	if err != nil || st.EphemeralOwner != rz.SessionID() {
		t.Fatalf("our znode's owner: %+v (%v), want the live session 0x%x", st, err, rz.SessionID())
	}
}
