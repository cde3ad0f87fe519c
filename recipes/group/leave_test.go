package group_test

import (
	"context"
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
)

// Leave's delete is applied, its answer lost in a cut that outlasts the
// session; meanwhile another process joins under the same name. When the
// connection heals, the client is on a new session: the member's znode went
// with the old one, and the znode at the path now is the other process's,
// at the same version 0. Leave must not delete it.
func TestLeaveAfterExpirySparesAnotherProcesssMember(t *testing.T) {
	t.Parallel()
	admin, _, proxy, rz := proxied(t, session)
	m := join(t, newGroup(t, rz), "duck")
	expired := waitExpired(t, admin, rz)

	answered, release := proxy.HoldReply(faultproxy.OpDelete)
	defer release()
	left := make(chan error, 1)
	go func() { left <- m.Leave(bounded(t, 30*time.Second)) }()
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("Leave sent no delete")
	}
	proxy.Cut()
	release()
	expired()
	other := join(t, newGroup(t, connect(t, server(t), session)), "duck")
	theirs := stat(t, admin, other.Path())
	proxy.Heal()

	select {
	case err := <-left:
		t.Logf("Leave returned %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("Leave did not return after the heal")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := admin.Sync(ctx, other.Path()); err != nil {
		t.Fatal(err)
	}
	if now := stat(t, admin, other.Path()); now == nil || now.Czxid != theirs.Czxid {
		t.Fatalf("the other process's member %+v is gone or replaced after our Leave (was %+v)", now, theirs)
	}
}
