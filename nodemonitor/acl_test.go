package nodemonitor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// guarded starts a candidate named name with the identity creds ("" for
// none) on /guarded/election. Its session gives every znode it makes the
// owner's ACL, whatever creds are: the intruders are refused for who they
// are, not for what they would write.
func guarded(t *testing.T, servers []string, creds, name string) (*nodemonitor.Monitor, *zktest.Listener, *recoverable.RecoverableZookeeper) {
	t.Helper()
	auth, _ := recoverable.Access(creds)
	opts := append([]recoverable.Option{recoverable.WithLogger(zktest.Logger(t))}, auth...)
	opts = append(opts, recoverable.WithACL(recoverable.DigestACL("speaker:s3cret")))
	rz, err := recoverable.Connect(servers, 2*time.Second, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rz.Close)
	l := zktest.NewListener(name)
	m, err := nodemonitor.New(rz, l, nodemonitor.WithPath("/guarded/election"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, l, rz
}

// A candidate whose credentials the election's ACL refuses would be
// refused forever: it gives up at once, says why, and never speaks, while
// the rightful leader goes on.
func TestWrongCredentialsGiveUpAtOnce(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	_, owner, rz := guarded(t, cluster.Servers(), "speaker:s3cret", "owner")
	electiontest.Eventually(t, 10*time.Second, "the rightful candidate leads", owner.Speaking)

	for _, creds := range []string{"speaker:wrong", ""} {
		m, l, _ := guarded(t, cluster.Servers(), creds, "intruder")
		select {
		case <-m.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("credentials %q: the refused candidate was still trying after 10s", creds)
		}
		if err := m.Err(); !errors.Is(err, nodemonitor.ErrNotAllowed) || !errors.Is(err, zk.ErrNoAuth) {
			t.Fatalf("credentials %q: Err() = %v, want ErrNotAllowed wrapping zk.ErrNoAuth", creds, err)
		}
		if l.Terms() != 0 || m.State() != nodemonitor.StateClosed {
			t.Fatalf("credentials %q: the refused candidate spoke %d times, state %v", creds, l.Terms(), m.State())
		}
		m.Close() // still safe, and prompt
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	children, err := rz.Children(ctx, "/guarded/election")
	if err != nil || len(children) != 1 || !owner.Speaking() {
		t.Fatalf("after the refusals: children %v (%v), owner speaking %v; want the owner alone, speaking", children, err, owner.Speaking())
	}
}

// Once in the election, a candidate does not give up on a refusal: the
// ACL was changed under it, and may be changed back. Here an operator
// takes CREATE away and deletes the leader's znode: the leader stops,
// fails to join again for as long as the ACL says so, and leads again
// once CREATE is given back.
func TestACLChangedAfterJoiningIsWaitedOut(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	m, l, rz := guarded(t, cluster.Servers(), "speaker:s3cret", "owner")
	electiontest.Eventually(t, 10*time.Second, "the candidate leads", l.Speaking)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	acl := recoverable.DigestACL("speaker:s3cret")
	noCreate := append(zk.DigestACL(zk.PermAll&^zk.PermCreate, "speaker", "s3cret"), acl[1:]...)
	if _, err := rz.Conn().SetACL("/guarded/election", noCreate, -1); err != nil {
		t.Fatal(err)
	}
	if err := rz.Delete(ctx, m.Node(), -1); err != nil {
		t.Fatal(err)
	}
	electiontest.Eventually(t, 10*time.Second, "the leader stops when its znode is deleted", func() bool { return !l.Speaking() })
	select {
	case <-m.Done():
		t.Fatalf("the candidate gave up on a refusal after it had joined: %v", m.Err())
	case <-time.After(2 * time.Second): // a few failed joins (backoff 100, 200, 400, 800 ms)
	}
	if _, err := rz.Conn().SetACL("/guarded/election", acl, -1); err != nil {
		t.Fatal(err)
	}
	electiontest.Eventually(t, 15*time.Second, "the candidate leads again once CREATE is back", l.Speaking)
	if m.Err() != nil {
		t.Fatalf("Err() = %v while it runs", m.Err())
	}
}
