package recoverable_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// A missing path is reported with a watch that fires when it is made;
// once made, its children are listed with a watch on the list.
func TestChildrenOrCreationWFollowsAPathThatComesLater(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	rz := zktest.Connect(t, zktest.Start(t, 1).Servers(), 4*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	children, exists, wake, err := rz.ChildrenOrCreationW(ctx, "/later")
	if err != nil || exists || len(children) != 0 || wake == nil {
		t.Fatalf("missing path: %v %v %v %v", children, exists, wake, err)
	}
	if _, err := rz.Create(ctx, "/later", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-ctx.Done():
		t.Fatal("no event when the path was made")
	}
	if _, err := rz.Create(ctx, "/later/a", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	children, exists, wake, err = rz.ChildrenOrCreationW(ctx, "/later")
	if err != nil || !exists || !slices.Equal(children, []string{"a"}) {
		t.Fatalf("made path: %v %v %v", children, exists, err)
	}
	if _, err := rz.Create(ctx, "/later/b", nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-ctx.Done():
		t.Fatal("no event when a child was added")
	}
}
