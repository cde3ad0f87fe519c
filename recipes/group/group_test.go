package group_test

import (
	"github.com/go-zookeeper/zk"

	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/recipes/group"
)

const session = 2 * time.Second // zktest's tickTime is 200 ms

// The chapter's run, through the API: create, join, list, delete, each
// result checked against what ZooKeeper holds.
func TestCreateJoinListDelete(t *testing.T) {
	t.Parallel()
	rz := connect(t, server(t), session)
	g := newGroup(t, rz)
	if _, err := g.List(bounded(t, 5*time.Second)); !errors.Is(err, group.ErrNoGroup) {
		t.Fatalf("List before Create = %v, want ErrNoGroup", err)
	}
	if err := g.Create(bounded(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if st := stat(t, rz, g.Path()); st == nil || st.EphemeralOwner != 0 {
		t.Fatalf("group znode %+v, want a persistent znode", st)
	}
	if err := g.Create(bounded(t, 5*time.Second)); !errors.Is(err, group.ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	if got := members(t, g); len(got) != 0 {
		t.Fatalf("members of a new group: %q", got)
	}

	// Each member on a session of its own, as separate processes.
	var ms []*group.Member
	for _, name := range []string{"goat", "duck", "cow"} {
		m := join(t, newGroup(t, connect(t, server(t), session)), name)
		if st := stat(t, rz, m.Path()); st == nil || st.EphemeralOwner != m.Status().Session {
			t.Fatalf("%s: znode %+v, want an ephemeral of session 0x%x", name, st, m.Status().Session)
		}
		ms = append(ms, m)
	}
	if got := members(t, g); !slices.Equal(got, []string{"cow", "duck", "goat"}) {
		t.Fatalf("List = %q, want cow duck goat, sorted", got)
	}

	// Leave deletes at once: no waiting for the session to expire.
	if err := ms[0].Leave(bounded(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := ms[0].Leave(bounded(t, 5*time.Second)); err != nil {
		t.Fatalf("second Leave = %v, want nil", err)
	}
	if got := members(t, g); !slices.Equal(got, []string{"cow", "duck"}) {
		t.Fatalf("List after goat left = %q, want cow duck", got)
	}

	removed, err := g.Delete(bounded(t, 5*time.Second))
	if err != nil || !slices.Equal(removed, []string{"cow", "duck"}) {
		t.Fatalf("Delete = %q, %v; want cow duck", removed, err)
	}
	if st := stat(t, rz, g.Path()); st != nil {
		t.Fatalf("the group is still there after Delete: %+v", st)
	}
	if _, err := g.Delete(bounded(t, 5*time.Second)); !errors.Is(err, group.ErrNoGroup) {
		t.Fatalf("second Delete = %v, want ErrNoGroup", err)
	}
	// The members still running learn that their group is gone, and stop.
	for _, m := range ms[1:] {
		select {
		case <-m.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("%s still runs after its group was deleted", m.Name())
		}
		if !errors.Is(m.Err(), group.ErrNoGroup) {
			t.Fatalf("%s: Err = %v, want ErrNoGroup", m.Name(), m.Err())
		}
	}
}

// Create of a group under a missing parent says which parent, and makes
// nothing; Join of a missing group says so.
func TestMissingParentAndGroup(t *testing.T) {
	t.Parallel()
	rz := connect(t, server(t), session)
	g, err := group.New(rz, groupName(t)+"/apps/zoo")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Create(bounded(t, 5*time.Second)); !errors.Is(err, group.ErrNoParent) || !strings.Contains(err.Error(), groupName(t)+"/apps does not exist") {
		t.Fatalf("Create = %v, want ErrNoParent naming the parent", err)
	}
	if st := stat(t, rz, groupName(t)); st != nil {
		t.Fatalf("Create made %s", groupName(t))
	}
	if _, err := newGroup(t, rz).Join(bounded(t, 5*time.Second), "duck"); !errors.Is(err, group.ErrNoGroup) {
		t.Fatalf("Join of a missing group = %v, want ErrNoGroup", err)
	}
}

// Two processes join under one name: the second must not take the first
// one's znode for its own (a create that meets NodeExists), and says whose
// it is.
func TestJoinTakenByAnotherSession(t *testing.T) {
	t.Parallel()
	g := created(t, connect(t, server(t), session))
	first := join(t, newGroup(t, connect(t, server(t), session)), "duck")
	_, err := newGroup(t, connect(t, server(t), session)).Join(bounded(t, 5*time.Second), "duck")
	want := fmt.Sprintf("duck is already a member (session 0x%x)", first.Status().Session)
	if !errors.Is(err, group.ErrMemberTaken) || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("second Join = %v, want ErrMemberTaken ending %q", err, want)
	}
	if got := members(t, g); !slices.Equal(got, []string{"duck"}) {
		t.Fatalf("members = %q, want duck alone", got)
	}
	if st := first.Status(); st.State != group.StateMember {
		t.Fatalf("the first duck is %v, want still a member", st.State)
	}
}

// A group's znode that is ephemeral can have no children: ZooKeeper refuses
// every member's create with NoChildrenForEphemerals, and always will.
// Join says so at once instead of trying again for as long as it is wanted.
func TestJoinUnderAnEphemeralZnodeFailsAtOnce(t *testing.T) {
	t.Parallel()
	rz := connect(t, server(t), session)
	if _, err := rz.CreateEphemeral(bounded(t, 5*time.Second), groupName(t), nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ctx := bounded(t, 10*time.Second)
	start := time.Now()
	_, err := newGroup(t, connect(t, server(t), session)).Join(ctx, "duck")
	if !errors.Is(err, zk.ErrNoChildrenForEphemerals) || ctx.Err() != nil {
		t.Fatalf("Join under an ephemeral znode = %v after %v, want NoChildrenForEphemerals at once", err, time.Since(start))
	}
}
