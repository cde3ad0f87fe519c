package znodemonitor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// Close can end a Check while its create is on the way: the candidate gives
// the create up without knowing whether the server made the znode. If it
// did, Leave must delete it, or every other candidate waits for a leader
// that has gone until our session ends. Here the network holds every answer
// back for longer than the Check may take, so the create reaches the
// server and its answer comes too late.
func TestLeaveAfterAnUnansweredCreateDeletesTheZnode(t *testing.T) {
	t.Parallel()
	const latency = 400 * time.Millisecond
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := zktest.Connect(t, []string{proxy.Addr()}, 10*time.Second)
	observer := zktest.Connect(t, cluster.Servers(), 10*time.Second)
	s := &singleFile{zk: rz, path: "/unanswered", data: []byte("me"), acl: zk.WorldACL(zk.PermAll), log: zktest.Logger(t)}
	proxy.SetReplyLatency(latency)

	checkCtx, cancel := context.WithTimeout(context.Background(), latency/4)
	_, err := s.Check(checkCtx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Check under a %v latency with a %v deadline: %v, want the deadline", latency, latency/4, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ok, st, err := observer.Exists(ctx, "/unanswered")
	if err != nil || !ok || st.EphemeralOwner != rz.SessionID() {
		t.Fatalf("the abandoned create should have made the znode on our session: exists=%v %+v %v", ok, st, err)
	}

	if err := s.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := observer.Exists(ctx, "/unanswered"); err != nil || ok {
		t.Fatalf("after Leave the znode exists=%v (%v); want it deleted, not left to our session", ok, err)
	}
}
