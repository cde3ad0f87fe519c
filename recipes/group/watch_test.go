package group_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recipes/group"
)

// The Watcher sees every join and leave, re-arming its one-shot children
// watch each time; a join while its connection is reset arrives when it
// reconnects; a leave while its session expires arrives when it has read
// the group again on the new session; and the group's deletion ends it.
func TestWatchFollowsTheGroup(t *testing.T) {
	t.Parallel()
	admin, g, proxy, wrz := proxied(t, session)
	w := newGroup(t, wrz).Watch()
	t.Cleanup(w.Close)
	next := func(what string, want func(group.Change) bool) group.Change {
		t.Helper()
		select {
		case ch, ok := <-w.Changes():
			if !ok {
				t.Fatalf("%s: Changes closed; Err = %v", what, w.Err())
			}
			if !want(ch) {
				t.Fatalf("%s: got %+v", what, ch)
			}
			return ch
		case <-time.After(4 * session):
			t.Fatalf("%s: no change within %v", what, 4*session)
		}
		return group.Change{}
	}
	is := func(joined, left []string, members ...string) func(group.Change) bool {
		return func(ch group.Change) bool {
			return slices.Equal(ch.Joined, joined) && slices.Equal(ch.Left, left) && slices.Equal(ch.Members, members) && !ch.First && !ch.Deleted
		}
	}
	next("the first reading", func(ch group.Change) bool { return ch.First && len(ch.Members) == 0 })

	duck := join(t, newGroup(t, connect(t, server(t), session)), "duck")
	next("duck joins", is([]string{"duck"}, nil, "duck"))
	cow := join(t, newGroup(t, connect(t, server(t), session)), "cow")
	next("cow joins", is([]string{"cow"}, nil, "cow", "duck"))
	if err := duck.Leave(bounded(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	next("duck leaves", is(nil, []string{"duck"}, "cow"))

	// A reset: goat joins while the watcher is away, on the same session.
	goat := newGroup(t, connect(t, server(t), session)) // quick, lest the reset outlast the session
	proxy.Reset()
	join(t, goat, "goat")
	proxy.Restore()
	next("goat joins during a reset", is([]string{"goat"}, nil, "cow", "goat"))

	// An expiry: cow leaves while the watcher's session dies. The canary,
	// an ephemeral of the watcher's session, shows when the server has
	// expired it.
	old := wrz.SessionID()
	canary := g.Path() + "-canary"
	if _, err := wrz.CreateEphemeral(bounded(t, 5*time.Second), canary, nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	if err := cow.Leave(bounded(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 4*session, "the watcher's session expires", func() bool { return stat(t, admin, canary) == nil })
	proxy.Heal()
	next("cow's leave, read on the new session", is(nil, []string{"cow"}, "goat"))
	if wrz.SessionID() == old {
		t.Fatalf("the watcher still has session 0x%x: it never expired", old)
	}

	if _, err := g.Delete(bounded(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	next("the group is deleted", func(ch group.Change) bool { return ch.Deleted && slices.Equal(ch.Left, []string{"goat"}) })
	select {
	case ch, ok := <-w.Changes():
		if ok {
			t.Fatalf("a change after the deletion: %+v", ch)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Changes stays open after the group was deleted")
	}
	if err := w.Err(); err != nil {
		t.Fatalf("Err after a deletion = %v, want nil", err)
	}
}

// Watching a group that does not exist ends at once with ErrNoGroup.
func TestWatchMissingGroup(t *testing.T) {
	t.Parallel()
	w := newGroup(t, connect(t, server(t), session)).Watch()
	defer w.Close()
	select {
	case ch, ok := <-w.Changes():
		if ok {
			t.Fatalf("a change of a missing group: %+v", ch)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Changes stays open for a missing group")
	}
	if !errors.Is(w.Err(), group.ErrNoGroup) {
		t.Fatalf("Err = %v, want ErrNoGroup", w.Err())
	}
}

// A Watcher's Done closes with Changes, whatever ends it, and Err then
// says why: here Close, which is no fault.
func TestWatcherDoneClosesWithChanges(t *testing.T) {
	t.Parallel()
	w := newGroup(t, connect(t, server(t), 4*time.Second)).Watch()
	select {
	case <-w.Done():
		t.Fatal("Done closed before the Watcher ended")
	default:
	}
	w.Close()
	select {
	case <-w.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done still open after Close")
	}
	if _, open := <-w.Changes(); open {
		t.Fatal("Changes still open after Done")
	}
}
