package group_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// hook installs f in Delete's window between read and multi, for this test.
func hook(t *testing.T, f func(attempt int)) {
	group.SetTestHookBeforeMulti(f)
	t.Cleanup(func() { group.SetTestHookBeforeMulti(nil) })
}

// populated is the test's group with members a, b and c, each an ephemeral
// of its own session, as separate processes would hold them.
func populated(t *testing.T) (*recoverable.RecoverableZookeeper, *group.Group) {
	t.Helper()
	admin := connect(t, server(t), session)
	g := created(t, admin)
	for _, name := range []string{"a", "b", "c"} {
		join(t, newGroup(t, connect(t, server(t), session)), name)
	}
	return admin, g
}

// A member joins between Delete's read and its multi: the multi's delete
// of the group meets NotEmpty, so nothing at all is deleted; Delete reads
// again and deletes everyone, the newcomer too.
func TestDeleteRetriesWhenAMemberJoins(t *testing.T) {
	// Not parallel: the hook is the package's, and parallel tests wait
	// until the others are done.
	admin, g := populated(t)
	late := newGroup(t, connect(t, server(t), session))
	attempts := 0
	hook(t, func(attempt int) {
		attempts = attempt
		if attempt == 1 {
			join(t, late, "late")
		}
	})
	removed, err := g.Delete(bounded(t, 10*time.Second))
	if err != nil || !slices.Equal(removed, []string{"a", "b", "c", "late"}) {
		t.Fatalf("Delete = %q, %v; want a b c late", removed, err)
	}
	if attempts != 2 {
		t.Fatalf("Delete made %d attempts, want 2: the first must fail whole", attempts)
	}
	if stat(t, admin, g.Path()) != nil {
		t.Fatal("the group is still there")
	}
}

// A member leaves in the window: its delete in the multi meets NoNode, the
// multi fails whole, and the retry deletes the rest.
func TestDeleteRetriesWhenAMemberLeaves(t *testing.T) {
	// Not parallel: the hook is the package's, and parallel tests wait
	// until the others are done.
	admin := connect(t, server(t), session)
	g := created(t, admin)
	a := join(t, newGroup(t, connect(t, server(t), session)), "a")
	join(t, newGroup(t, connect(t, server(t), session)), "b")
	attempts := 0
	hook(t, func(attempt int) {
		attempts = attempt
		if attempt == 1 {
			if err := a.Leave(bounded(t, 5*time.Second)); err != nil {
				t.Error(err)
			}
		}
	})
	removed, err := g.Delete(bounded(t, 10*time.Second))
	if err != nil || !slices.Equal(removed, []string{"b"}) || attempts != 2 {
		t.Fatalf("Delete = %q, %v after %d attempts; want b after 2", removed, err, attempts)
	}
	if stat(t, admin, g.Path()) != nil {
		t.Fatal("the group is still there")
	}
}

// Members join in every window: Delete gives up after its bounded attempts
// and has deleted nobody: all or nothing, even when it is nothing.
func TestDeleteGivesUpWhole(t *testing.T) {
	// Not parallel: the hook is the package's, and parallel tests wait
	// until the others are done.
	admin, g := populated(t)
	joiner := newGroup(t, connect(t, server(t), session))
	hook(t, func(attempt int) { join(t, joiner, fmt.Sprintf("j%02d", attempt)) })
	_, err := g.Delete(bounded(t, 20*time.Second))
	if !errors.Is(err, group.ErrBusy) {
		t.Fatalf("Delete = %v, want ErrBusy", err)
	}
	want := []string{"a", "b", "c"}
	for i := 1; i <= group.DeleteAttempts; i++ {
		want = append(want, fmt.Sprintf("j%02d", i))
	}
	if got := members(t, g); !slices.Equal(got, want) {
		t.Fatalf("members after a failed Delete = %q, want all of %q", got, want)
	}
	if stat(t, admin, g.Path()) == nil {
		t.Fatal("the group is gone after ErrBusy")
	}
}

// A child with children of its own is a group, not a member: Delete says
// so and deletes nothing.
func TestDeleteRefusesANestedGroup(t *testing.T) {
	t.Parallel()
	admin, g := populated(t)
	ctx := bounded(t, 10*time.Second)
	for _, p := range []string{g.Path() + "/sub", g.Path() + "/sub/x"} {
		if _, err := admin.Create(ctx, p, nil, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.Delete(ctx); !errors.Is(err, group.ErrNotMember) {
		t.Fatalf("Delete = %v, want ErrNotMember", err)
	}
	if got := members(t, g); !slices.Equal(got, []string{"a", "b", "c", "sub"}) {
		t.Fatalf("members after a refused Delete = %q, want all", got)
	}
}

// The invariant, under real concurrency: while members keep joining and a
// reader keeps listing, no reading ever shows the group with some of its
// first members gone. It is deleted whole, or (ErrBusy) not at all. The
// same reader catches the chapter's loop of deletes in the act.
func TestDeleteIsNeverPartial(t *testing.T) {
	t.Parallel()
	t.Run("multi", func(t *testing.T) {
		admin, g := populated(t)
		stop := churn(t, g)
		_, err := g.Delete(bounded(t, 20*time.Second))
		partial := stop()
		if len(partial) > 0 {
			t.Fatalf("a reader saw the group half deleted %d times; the first: %.200s", len(partial), partial[0])
		}
		exists := stat(t, admin, g.Path()) != nil
		switch {
		case err == nil && exists:
			t.Fatal("Delete succeeded but the group is still there")
		case err != nil && !errors.Is(err, group.ErrBusy):
			t.Fatal(err)
		case err != nil && !slices.Equal(members(t, g)[:3], []string{"a", "b", "c"}):
			t.Fatalf("Delete failed and members are gone: %q", members(t, g))
		}
	})
	t.Run("chapter's loop", func(t *testing.T) {
		// Plain ephemerals: a Member would put itself back at once.
		admin := connect(t, server(t), session)
		g := created(t, admin)
		for _, name := range []string{"a", "b", "c"} {
			if _, err := admin.CreateEphemeral(bounded(t, 5*time.Second), g.Path()+"/"+name, nil, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
		stop := churn(t, g)
		ctx := bounded(t, 10*time.Second)
		children, err := admin.Children(ctx, g.Path())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range children { // as DeleteGroup does
			if err := admin.Delete(ctx, g.Path()+"/"+c, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond) // a reader's moment between two requests
		}
		err = admin.Delete(ctx, g.Path(), -1)
		partial := stop()
		t.Logf("the chapter's loop: group delete %v; partial readings: %d", err, len(partial))
		if len(partial) == 0 {
			t.Fatal("the reader saw no half-deleted group during a loop of deletes: the check is blind")
		}
	})
}

// churn starts a joiner, which adds a member every few milliseconds, and a
// reader, which lists the group over and over. stop ends both and returns
// the readings that showed the group with one of a, b, c missing.
func churn(t *testing.T, g *group.Group) (stop func() []string) {
	t.Helper()
	joinRZ := connect(t, server(t), session)
	readRZ := connect(t, server(t), session)
	reader, err := group.New(readRZ, g.Path())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var partial []string
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			_, err := joinRZ.CreateEphemeral(ctx, fmt.Sprintf("%s/n%04d", g.Path(), i), nil, zk.WorldACL(zk.PermAll))
			if errors.Is(err, zk.ErrNoNode) {
				return // the group is gone
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			got, err := reader.List(ctx)
			if err != nil {
				continue // ErrNoGroup: deleted; or ctx done
			}
			for _, first := range []string{"a", "b", "c"} {
				if !slices.Contains(got, first) {
					partial = append(partial, fmt.Sprint(got))
					break
				}
			}
		}
	}()
	return func() []string {
		time.Sleep(100 * time.Millisecond) // let the reader see the end
		cancel()
		wg.Wait()
		return partial
	}
}
