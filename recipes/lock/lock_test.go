package lock_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// A holder whose session expires is told at once, under at-most-one as
// soon as its connection is lost, and the next in line takes the lock
// only after the expiry: never two holders.
func TestLostIsToldBeforeTheNextHolds(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	const session = 2 * time.Second
	a := lock.New(zktest.Connect(t, []string{proxy.Addr()}, session), "/l", "a")
	b := lock.New(zktest.Connect(t, cluster.Servers(), session), "/l", "b")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer a.Unlock(ctx)
	bHolds := make(chan time.Time, 1)
	go func() {
		if b.Lock(ctx) == nil {
			bHolds <- time.Now()
		}
	}()
	defer b.Unlock(ctx)
	time.Sleep(200 * time.Millisecond)
	cut := time.Now()
	proxy.Cut()
	defer proxy.Heal()
	var lost time.Time
	select {
	case <-a.Lost():
		lost = time.Now()
	case <-time.After(2 * session):
		t.Fatal("a's lock was never reported lost")
	}
	var held time.Time
	select {
	case held = <-bHolds:
	case <-time.After(3 * session):
		t.Fatal("b never got the lock after a's session expired")
	}
	if !lost.Before(held) {
		t.Fatalf("a was told of its loss at %v, after b held the lock at %v", lost.Sub(cut), held.Sub(cut))
	}
	t.Logf("cut at 0; a told at %v; b holds at %v", lost.Sub(cut).Round(time.Millisecond), held.Sub(cut).Round(time.Millisecond))
	// The engine gives up when the session may have expired: the lock is
	// then lost for good, and says so.
	select {
	case <-a.Done():
		if !errors.Is(a.Err(), lock.ErrLost) {
			t.Errorf("a's Err after its loss: %v, want lock.ErrLost", a.Err())
		}
	case <-time.After(2 * session):
		t.Error("a's lock not Done though b holds it")
	}
}

// heldLock starts a server and takes the lock /l on a session of its own;
// ctx bounds the test.
func heldLock(t *testing.T) (*zktest.Cluster, *lock.Lock, context.Context) {
	t.Helper()
	cluster := zktest.Start(t, 1)
	holder := lock.New(zktest.Connect(t, cluster.Servers(), 2*time.Second), "/l", "holder")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	return cluster, holder, ctx
}

// Lock gives up when its context ends, and leaves the line: the next
// contender is not stuck behind a znode nobody waits on.
func TestLockGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	cluster, holder, ctx := heldLock(t)
	impatient := lock.New(zktest.Connect(t, cluster.Servers(), 2*time.Second), "/l", "impatient")
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	if err := impatient.Lock(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock with a short context = %v, want DeadlineExceeded", err)
	}
	rz := zktest.Connect(t, cluster.Servers(), 2*time.Second)
	if children, err := rz.Children(ctx, "/l"); err != nil || len(children) != 1 {
		t.Fatalf("contenders after the impatient one gave up: %v, %v; want the holder alone", children, err)
	}
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}

// A contender whose session is closed while it waits in line is told that
// (recoverable.ErrClosed), not that somebody unlocked it.
func TestLockInLineEndsWithItsSession(t *testing.T) {
	t.Parallel()
	cluster, holder, ctx := heldLock(t)
	defer holder.Unlock(ctx)
	rz := zktest.Connect(t, cluster.Servers(), 2*time.Second)
	waiting := lock.New(rz, "/l", "waiting")
	result := make(chan error, 1)
	go func() { result <- waiting.Lock(ctx) }()
	watcher := zktest.Connect(t, cluster.Servers(), 2*time.Second)
	for {
		if children, err := watcher.Children(ctx, "/l"); err != nil {
			t.Fatal(err)
		} else if len(children) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	rz.Close()
	select {
	case err := <-result:
		if !errors.Is(err, recoverable.ErrClosed) {
			t.Fatalf("Lock after its session was closed = %v, want recoverable.ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("Lock still waits after its session was closed")
	}
}

// A contender that the lock znode's ACL refuses is told so at once, not
// left waiting for a lock it can never queue for.
func TestLockRefusedByTheACLFailsAtOnce(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	const creds = "locker:s3cret"
	auth, _ := recoverable.Access(creds) // the identity, and the ACL that names it
	rz, err := recoverable.Connect(cluster.Servers(), 2*time.Second, append(auth, recoverable.WithLogger(quiet))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rz.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	owner := lock.New(rz, "/guarded-lock", "owner")
	if err := owner.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer owner.Unlock(ctx)

	// Its znodes would carry the owner's ACL: it is refused for who it is.
	stranger := lock.New(zktest.Connect(t, cluster.Servers(), 2*time.Second, recoverable.WithACL(recoverable.DigestACL(creds))), "/guarded-lock", "stranger")
	defer stranger.Unlock(ctx)
	start := time.Now()
	err = stranger.Lock(ctx)
	if !errors.Is(err, nodemonitor.ErrNotAllowed) || !errors.Is(err, zk.ErrNoAuth) || ctx.Err() != nil {
		t.Fatalf("Lock without the credentials = %v after %v, want ErrNotAllowed (zk.ErrNoAuth) at once", err, time.Since(start))
	}
	select {
	case <-owner.Lost():
		t.Fatal("the owner lost its lock")
	default:
	}
}

// A Lock is good for one acquisition: Lock again on it is a misuse, said
// by a sentinel, and leaves the lock held.
func TestLockTwiceIsErrLocked(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	l := lock.New(zktest.Connect(t, cluster.Servers(), 2*time.Second), zktest.Path(t), "twice")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	if err := l.Lock(ctx); !errors.Is(err, lock.ErrLocked) {
		t.Fatalf("second Lock: %v, want lock.ErrLocked", err)
	}
	select {
	case <-l.Lost():
		t.Fatal("the second Lock lost the first one's lock")
	default:
	}
}
