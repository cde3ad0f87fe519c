package lock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
)

// Unlock while cut off from ZooKeeper cannot delete the holder's znode at
// once, and the session lives on (its client is open): were Unlock to
// return then, the znode would keep the next in line waiting for as long
// as the session lives. Unlock waits for the connection, within its ctx,
// deletes the znode, and returns nil only then; the next in line takes
// over at once.
func TestUnlockWhileCutOffDeletesOnceBack(t *testing.T) {
	t.Parallel()
	a, proxy := proxiedLock(t)
	b := lock.New(zktest.Connect(t, zktest.Shared(t).Servers(), 2*time.Second), zktest.Path(t), "b")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	bHolds := make(chan error, 1)
	go func() { bHolds <- b.Lock(ctx) }()
	defer b.Unlock(ctx)
	awaitContenders(t, ctx, 2)

	proxy.Reset()
	unlocked := make(chan error, 1)
	go func() { unlocked <- a.Unlock(ctx) }()
	select {
	case err := <-unlocked:
		t.Fatalf("Unlock returned %v while cut off, with its znode still there", err)
	case <-time.After(session / 2):
	}
	back := time.Now()
	proxy.Restore()
	select {
	case err := <-unlocked:
		if err != nil {
			t.Fatalf("Unlock once the connection was back: %v", err)
		}
	case <-time.After(session):
		t.Fatal("Unlock still waits, a session after the connection came back")
	}
	select {
	case err := <-bHolds:
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("b holds %v after the connection came back", time.Since(back).Round(time.Millisecond))
	case <-time.After(session / 2):
		t.Fatal("b does not hold the lock after a's Unlock returned")
	}
}

// An Unlock whose ctx ends while cut off says that the znode stays, and
// the lock is released all the same (Done); a later Unlock, once the
// connection is back, deletes it.
func TestUnlockSaysWhenItsZnodeStays(t *testing.T) {
	t.Parallel()
	a, proxy := proxiedLock(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	proxy.Reset()
	short, stop := context.WithTimeout(ctx, 500*time.Millisecond)
	defer stop()
	if err := a.Unlock(short); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Unlock while cut off = %v, want an error that is context.DeadlineExceeded", err)
	}
	select {
	case <-a.Done():
	default:
		t.Fatal("Done still open after an Unlock that could not delete")
	}
	awaitContenders(t, ctx, 1)
	proxy.Restore()
	if err := a.Unlock(ctx); err != nil {
		t.Fatalf("Unlock again once back: %v", err)
	}
	awaitContenders(t, ctx, 0)
}

// Unlock after the session was closed has nothing to delete: the znode
// went with the session. So does Unlock before Lock, which made none.
func TestUnlockWithoutAZnodeIsNil(t *testing.T) {
	t.Parallel()
	rz := zktest.Connect(t, zktest.Shared(t).Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	never := lock.New(rz, zktest.Path(t), "never")
	if err := never.Unlock(ctx); err != nil {
		t.Fatalf("Unlock before Lock: %v", err)
	}
	l := lock.New(rz, zktest.Path(t), "a")
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	rz.Close()
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after the session was closed: %v", err)
	}
}

// awaitContenders waits until the test's lock path has n contenders.
func awaitContenders(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	rz := zktest.Connect(t, zktest.Shared(t).Servers(), 2*time.Second)
	for {
		children, err := rz.Children(ctx, zktest.Path(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(children) == n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("contenders: %v, want %d", children, n)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
