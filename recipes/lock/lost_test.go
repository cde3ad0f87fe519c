package lock_test

import (
	"context"
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
)

// Under at-most-one a holder that loses its connection can no longer prove
// it holds the lock, so Lost closes at once, whatever the election engine
// is busy with: here its watch on its own znode, whose answer the proxy
// holds, and which then retries against refused connections until the
// session may have expired. zklock's watchdog stops CMD at about nine
// tenths of the session; Lost must come long before, so that CMD gets its
// SIGTERM and its grace.
func TestLostClosesAtTheDisconnectWhileTheEngineIsBusy(t *testing.T) {
	t.Parallel()
	l, proxy := proxiedLock(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	watching, release := proxy.HoldReply(faultproxy.OpGetData)
	if err := l.Lock(ctx); err != nil {
		release()
		t.Fatal(err)
	}
	// Unlock waits until our znode is gone, so the held answer and the
	// connection go first: deferred calls run last first.
	defer l.Unlock(ctx) //nolint:errcheck // the lock is already lost
	defer release()
	select {
	case <-watching: // the engine now waits for its own watch's answer
	case <-time.After(10 * time.Second):
		t.Fatal("the holder never set its watch on its own znode")
	}
	reset := time.Now()
	proxy.Reset()
	defer proxy.Restore()
	select {
	case <-l.Lost():
		t.Logf("lost %v after the reset", time.Since(reset).Round(time.Millisecond))
	case <-time.After(session / 4):
		t.Fatalf("Lost still open %v after the connection was reset (session %v)", session/4, session)
	}
}

// Under at-most-one a connection lost and back within the session
// suspends the lock, then proves it ours again: Observe says suspended,
// then held; Lost closes at the suspension, as the simplest holder must
// stop there; Done stays open, for the lock is not lost.
func TestABlipSuspendsTheLockAndTheReconnectResumesIt(t *testing.T) {
	t.Parallel()
	l, proxy := proxiedLock(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(ctx)
	states := l.Observe(ctx)
	if s := <-states; s != lock.StateHeld {
		t.Fatalf("first state %v, want held", s)
	}
	proxy.Reset()
	time.Sleep(100 * time.Millisecond)
	proxy.Restore()
	for _, want := range []lock.State{lock.StateSuspended, lock.StateHeld} {
		select {
		case s := <-states:
			if s != want {
				t.Fatalf("state %v, want %v", s, want)
			}
		case <-time.After(session):
			t.Fatalf("no %v within the session", want)
		}
	}
	select {
	case <-l.Lost():
	default:
		t.Error("Lost still open after the suspension")
	}
	select {
	case <-l.Done():
		t.Error("Done closed, but the lock was not lost")
	default:
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if s := <-states; s != lock.StateReleased {
		t.Errorf("after Unlock: %v, want released", s)
	}
}

// Done and Err tell how a lock ended: released, no error.
func TestReleasedLockIsDoneWithoutError(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	l := lock.New(zktest.Connect(t, cluster.Servers(), 2*time.Second), zktest.Path(t), "a")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := l.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if l.Err() != nil {
		t.Fatalf("Err while held: %v, want nil", l.Err())
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done still open after Unlock")
	}
	if l.Err() != nil {
		t.Fatalf("Err after Unlock: %v, want nil", l.Err())
	}
}

// session is the session timeout of the proxied locks' clients.
const session = 4 * time.Second

// proxiedLock is a Lock on the shared server, whose client talks through a
// fault proxy of its own.
func proxiedLock(t *testing.T) (*lock.Lock, *faultproxy.Proxy) {
	t.Helper()
	proxy := zktest.NewProxy(t, zktest.Shared(t).Server(0))
	return lock.New(zktest.Connect(t, []string{proxy.Addr()}, session), zktest.Path(t), "a"), proxy
}
