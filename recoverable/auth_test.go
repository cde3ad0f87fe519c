package recoverable_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// A client started before ZooKeeper must still be itself once the server is
// up. go-zookeeper fails every queued request, credentials included, after
// each fruitless pass over the servers, and keeps only credentials that a
// server accepted; a client that gave them only once would go on
// unauthenticated, and be refused by the ACL of its own znodes.
func TestCredentialsGivenBeforeZooKeeperIsUpAreKept(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	cluster.Stop(0)
	const creds = "ann:secret"
	rz, err := recoverable.Connect(cluster.Servers(), 4*time.Second,
		recoverable.WithDigestAuth(creds), recoverable.WithLogger(zktest.Logger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rz.Close)
	// go-zookeeper gives up on queued requests after each pass over the
	// servers, and waits a second between passes: two passes at least.
	time.Sleep(2500 * time.Millisecond)
	cluster.Start(0)

	ctx := testCtx(t)
	if _, err := rz.Create(ctx, "/guarded", []byte("1"), recoverable.DigestACL(creds)); err != nil {
		t.Fatalf("create: %v", err)
	}
	// ZooKeeper checks a create against the parent's ACL (the root is open):
	// only this set shows whether the session is ann.
	if _, err := rz.Set(ctx, "/guarded", []byte("2"), -1); err != nil {
		t.Fatalf("set of our own znode: %v (the credentials were lost while ZooKeeper was down)", err)
	}
	stranger := connect(t, cluster.Servers(), 4*time.Second)
	if _, err := stranger.Set(ctx, "/guarded", []byte("3"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("set by a client without the credentials = %v, want %v", err, zk.ErrNoAuth)
	}
}

// The ACL of the znodes built on a session goes with the session, next to
// the identity it names: Access gives both, and an empty ACL, which
// ZooKeeper would refuse on every create, is refused at once.
func TestTheSessionCarriesTheACLOfItsZnodes(t *testing.T) {
	t.Parallel()
	opts, acl := recoverable.Access("ann:secret")
	rz, err := recoverable.Connect([]string{"127.0.0.1:1"}, time.Second, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer rz.Close()
	if got := rz.ACL(); len(got) != len(acl) || got[0] != acl[0] || got[0].Scheme != "digest" {
		t.Fatalf("ACL() = %v, want Access's %v", got, acl)
	}
	open, err := recoverable.Connect([]string{"127.0.0.1:1"}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if got := open.ACL(); len(got) != 1 || got[0] != zk.WorldACL(zk.PermAll)[0] {
		t.Fatalf("ACL() without WithACL = %v, want open to all", got)
	}
	if _, err := recoverable.Connect([]string{"127.0.0.1:1"}, time.Second, recoverable.WithACL(nil)); err == nil {
		t.Fatal("Connect with an empty ACL succeeded")
	}
}
