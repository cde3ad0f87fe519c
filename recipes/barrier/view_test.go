package barrier_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/barrier"
)

// Inspect shows a double barrier as its members stand: two of three in
// and waiting, then all three inside once the third opens the round, then
// a fourth that came during the round waiting for it to end; and its
// watch fires at each of those changes.
func TestInspectShowsWhoIsInAndWhoWaits(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	look := connect(t)

	v, wake, err := barrier.Inspect(ctx, look, path)
	if err != nil || v.Exists || len(v.Members) != 0 {
		t.Fatalf("before any member: %+v, %v; want no barrier", v, err)
	}
	var enters []<-chan error
	enter := func(name string) {
		b, err := barrier.NewDouble(connect(t), path, 3, barrier.WithName(name))
		if err != nil {
			t.Fatal(err)
		}
		enters = append(enters, async(ctx, b.Enter))
	}
	// seen waits for the watch, then inspects again until the view reads
	// want: one member's change may take two notifications.
	seen := func(want string) barrier.View {
		t.Helper()
		for {
			select {
			case <-wake:
			case <-time.After(10 * session):
				t.Fatalf("no notification; the view still reads %s, want %s", show(v), want)
			}
			if v, wake, err = barrier.Inspect(ctx, look, path); err != nil {
				t.Fatal(err)
			}
			if show(v) == want {
				return v
			}
		}
	}

	enter("ann")
	seen("N=3 round=no ann:waits")
	enter("bob")
	seen("N=3 round=no ann:waits bob:waits")
	if v.Waiting() != 2 {
		t.Errorf("Waiting() = %d with two members in, want 2", v.Waiting())
	}
	enter("carol")
	v = seen("N=3 round=open ann:inside bob:inside carol:inside")
	if last := v.Members[2].Seq; v.Round != last {
		t.Errorf("the round ends at %d, want carol's %d", v.Round, last)
	}
	for _, ch := range enters {
		if err := returned(t, ch, 5*session, "Enter with three in"); err != nil {
			t.Fatal(err)
		}
	}
	enter("dave") // a later round's member: waits for this one to end
	seen("N=3 round=open ann:inside bob:inside carol:inside dave:waits")
	if v.Waiting() != 1 {
		t.Errorf("Waiting() = %d with dave waiting, want 1", v.Waiting())
	}
}

// A simple barrier is a znode alone: Inspect shows it set, then removed.
func TestInspectShowsASimpleBarrierSetAndRemoved(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	rz := connect(t)
	b, err := barrier.New(rz, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Set(ctx); err != nil {
		t.Fatal(err)
	}
	v, wake, err := barrier.Inspect(ctx, rz, path)
	if err != nil || !v.Exists || v.Count != 0 || len(v.Members) != 0 {
		t.Fatalf("set: %+v, %v; want it to exist, with no count and no members", v, err)
	}
	if err := b.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-wake:
		if ev.Type != zk.EventNodeDeleted {
			t.Errorf("the watch fired with %v, want the barrier's deletion", ev.Type)
		}
	case <-time.After(10 * session):
		t.Fatal("no notification of the removal")
	}
	if v, _, err = barrier.Inspect(ctx, rz, path); err != nil || v.Exists {
		t.Fatalf("removed: %+v, %v; want it gone", v, err)
	}
}

// show is a view in one line: N, whether a round is open, and each member
// by name, inside or waiting.
func show(v barrier.View) string {
	round := "no"
	if v.Round > 0 {
		round = "open"
	}
	out := []string{fmt.Sprintf("N=%d round=%s", v.Count, round)}
	for _, m := range v.Members {
		stand := "waits"
		if m.Inside {
			stand = "inside"
		}
		out = append(out, m.Data+":"+stand)
	}
	return strings.Join(out, " ")
}
