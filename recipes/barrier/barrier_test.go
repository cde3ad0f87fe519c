package barrier_test

import (
	"context"
	"errors"
	"testing"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/barrier"
)

// The simple barrier: Wait passes at once while it is not set, holds while
// it is, each waiter watching its one znode, and lets every waiter go at
// Remove. A second Remove says the barrier is not set.
func TestSimpleBarrierHoldsWaitersUntilRemoved(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t) + "/start"
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	boss, err := barrier.New(connect(t), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := boss.Wait(ctx); err != nil {
		t.Fatalf("Wait on a barrier not set: %v, want nil at once", err)
	}
	if err := boss.Set(ctx); err != nil {
		t.Fatal(err)
	}
	if err := boss.Set(ctx); err != nil {
		t.Fatalf("a second Set: %v, want nil", err)
	}
	var waits []<-chan error
	for range 3 {
		rz := connect(t)
		w, _ := barrier.New(rz, path)
		waits = append(waits, async(ctx, w.Wait))
		awaitWatch(t, rz, path)
	}
	for _, ch := range waits {
		waiting(t, ch, "Wait on a set barrier")
	}
	if err := boss.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ch := range waits {
		if err := returned(t, ch, 5*session, "Wait after Remove"); err != nil {
			t.Fatal(err)
		}
	}
	if err := boss.Remove(ctx); !errors.Is(err, barrier.ErrNotSet) {
		t.Fatalf("Remove of a removed barrier: %v, want ErrNotSet", err)
	}
}

// A path ZooKeeper would refuse is refused before any request, naming the
// field.
func TestNewRefusesABadPath(t *testing.T) {
	t.Parallel()
	rz := connect(t)
	if _, err := barrier.New(rz, "no-slash"); err == nil || err.Error()[:5] != "path:" {
		t.Errorf("New(no-slash): %v, want an error naming path", err)
	}
	if _, err := barrier.NewDouble(rz, "/a/", 2); err == nil || err.Error()[:5] != "path:" {
		t.Errorf("NewDouble(/a/): %v, want an error naming path", err)
	}
}
