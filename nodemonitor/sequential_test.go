package nodemonitor

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// A create can give up without learning whether the server made the node:
// a long outage exhausts its retries, or the Check's deadline passes. If the
// node was made and the session lives, the next join must take that node,
// not make a second one that would stand behind it, with the first leading
// for nobody. Here the "failed" create is made directly, with the
// candidate's name, and the candidate is told its last create failed.
func TestJoinAfterAFailedCreateTakesTheNodeItMade(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	acl := zk.WorldACL(zk.PermAll)
	s := &sequential{zk: rz, path: "/unsure", data: []byte("me"), acl: acl, watch: WatchPredecessor, rule: Exclusive{}, log: zktest.Logger(t)}
	var err error
	if s.name, err = recoverable.NewProtectedName(Prefix); err != nil {
		t.Fatal(err)
	}
	if err := rz.EnsurePath(ctx, s.path, acl); err != nil {
		t.Fatal(err)
	}
	made, err := rz.CreateProtectedEphemeralSequential(ctx, s.path, s.name, s.data, acl)
	if err != nil {
		t.Fatal(err)
	}
	s.unsure = true

	d, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	children, err := rz.Children(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Leader || d.Node != made || len(children) != 1 {
		t.Fatalf("decision %+v, children %v: want to lead with the node already made, %s, and no other", d, children, made)
	}
}

// Close can end a Check while its create is on the way (the candidate
// gives the create up, unsure whether the server made the node). Leave
// must find that node and delete it, or it stands in line for nobody until
// the session ends. Here the create is made directly, with the candidate's
// name, and the candidate is told its last create failed.
func TestLeaveAfterAFailedCreateDeletesTheNodeItMade(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	rz := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	acl := zk.WorldACL(zk.PermAll)
	s := &sequential{zk: rz, path: "/unsure-leave", data: []byte("me"), acl: acl, watch: WatchPredecessor, rule: Exclusive{}, log: zktest.Logger(t)}
	var err error
	if s.name, err = recoverable.NewProtectedName(Prefix); err != nil {
		t.Fatal(err)
	}
	if err := rz.EnsurePath(ctx, s.path, acl); err != nil {
		t.Fatal(err)
	}
	if _, err := rz.CreateProtectedEphemeralSequential(ctx, s.path, s.name, s.data, acl); err != nil {
		t.Fatal(err)
	}
	s.unsure = true

	if err := s.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	children, err := rz.Children(ctx, s.path)
	if err != nil || len(children) != 0 {
		t.Fatalf("children after Leave: %v, %v; want none left standing", children, err)
	}
}
