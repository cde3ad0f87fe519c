package config_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

// next waits for the watcher's next value.
func next(t *testing.T, values <-chan config.Value, what string) config.Value {
	t.Helper()
	select {
	case v, ok := <-values:
		if !ok {
			t.Fatalf("%s: the watcher's channel closed", what)
		}
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no value within 20s", what)
	}
	return config.Value{}
}

// quiet checks that the watcher sends nothing for a while.
func quiet(t *testing.T, values <-chan config.Value, d time.Duration, what string) {
	t.Helper()
	select {
	case v, ok := <-values:
		t.Fatalf("%s: got %+v (open %v), want nothing", what, v, ok)
	case <-time.After(d):
	}
}

// watch starts a watcher that the test's end stops, and drains.
func watch(t *testing.T, store *config.Store, key string) <-chan config.Value {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	values, err := store.Watch(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		for range values {
		}
	})
	return values
}

// The watcher reports a key that does not exist yet, then each value, a
// delete, and the key created again; nothing twice.
func TestWatchFollowsCreateChangeDelete(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	rz := client(t, server(t), 2*time.Second)
	base := fresh("/t-follow")
	store := newStore(t, rz, base)
	values := watch(t, store, "k")
	if v := next(t, values, "start"); v.Exists {
		t.Fatalf("first value %+v, want a key that does not exist", v)
	}
	writer := newStore(t, client(t, server(t), 2*time.Second), base)
	for _, want := range []string{"1", "2", "2"} {
		if err := writer.Write(ctx, "k", want); err != nil {
			t.Fatal(err)
		}
		// The same data written again is a new write: the zxid tells.
		if v := next(t, values, "after writing "+want); !v.Exists || v.Data != want {
			t.Fatalf("after writing %s: %+v", want, v)
		}
	}
	if err := writer.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if v := next(t, values, "after the delete"); v.Exists {
		t.Fatalf("after the delete: %+v, want a key that does not exist", v)
	}
	if err := writer.Write(ctx, "k", "3"); err != nil {
		t.Fatal(err)
	}
	if v := next(t, values, "created again"); !v.Exists || v.Data != "3" || v.Version != 0 {
		t.Fatalf("created again: %+v, want 3 at version 0", v)
	}
	quiet(t, values, 500*time.Millisecond, "with no more writes")
}

// Watches are one-shot and carry no data: the watcher learns that the key
// changed, then reads it. Writes that land before that read are seen as
// one, the last. Here the watcher is held on its send of 1 while 2 and 3
// are written: it never reports 2. README, "Why a watcher misses values".
func TestWatchSeesTheLatestNotEveryValue(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	rz := client(t, server(t), 2*time.Second)
	base := fresh("/t-miss")
	store := newStore(t, rz, base)
	if err := store.Write(ctx, "k", "1"); err != nil {
		t.Fatal(err)
	}
	values := watch(t, store, "k")
	// Once the server holds the watch, the watcher has read 1, and waits
	// for us to take it.
	eventually(t, 10*time.Second, "the watch is set", func() bool {
		w, err := fourletter.Watches(ctx, server(t)[0])
		return err == nil && slices.Contains(w[rz.SessionID()], base+"/k")
	})
	for _, v := range []string{"2", "3"} {
		if err := store.Write(ctx, "k", v); err != nil {
			t.Fatal(err)
		}
	}
	if v := next(t, values, "first"); v.Data != "1" {
		t.Fatalf("first value %q, want 1", v.Data)
	}
	if v := next(t, values, "second"); v.Data != "3" {
		t.Fatalf("second value %q, want 3: the two writes while it was busy are seen as one", v.Data)
	}
	quiet(t, values, 500*time.Millisecond, "after the latest value")
}

// A connection reset shorter than the session: go-zookeeper sets the
// watch again on reconnect, and the server fires it for the write that
// landed meanwhile. Same session.
func TestWatchSurvivesAReconnect(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	proxy := zktest.NewProxy(t, server(t)[0])
	rz := client(t, []string{proxy.Addr()}, 4*time.Second)
	base := fresh("/t-reconnect")
	values := watch(t, newStore(t, rz, base), "k")
	writer := newStore(t, client(t, server(t), 2*time.Second), base)
	if err := writer.Write(ctx, "k", "before"); err != nil {
		t.Fatal(err)
	}
	next(t, values, "start") // "does not exist" or "before", by timing
	session := rz.SessionID()
	proxy.Reset()
	if err := writer.Write(ctx, "k", "during"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	proxy.Restore()
	for {
		v := next(t, values, "after the reconnect")
		if v.Data == "during" {
			break
		}
		if v.Data != "before" {
			t.Fatalf("after the reconnect: %+v, want before or during", v)
		}
	}
	if rz.SessionID() != session {
		t.Fatalf("the session changed (0x%x to 0x%x): the reset was meant to be shorter than the session", session, rz.SessionID())
	}
}

// A partition longer than the session: the session expires with its
// watch, and go-zookeeper opens a new one once the network heals. The
// watcher reads again on it and reports the value written during the
// outage, then follows the key on the new session.
func TestWatchSurvivesSessionExpiry(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	proxy := zktest.NewProxy(t, server(t)[0])
	rz := client(t, []string{proxy.Addr()}, time.Second)
	base := fresh("/t-expiry")
	values := watch(t, newStore(t, rz, base), "k")
	writer := newStore(t, client(t, server(t), 2*time.Second), base)
	if err := writer.Write(ctx, "k", "before"); err != nil {
		t.Fatal(err)
	}
	for next(t, values, "start").Data != "before" {
	}
	session := rz.SessionID()

	proxy.Cut()
	if err := writer.Write(ctx, "k", "during"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * rz.SessionTimeout())
	quiet(t, values, 0, "while cut off") // it can learn nothing while cut
	proxy.Heal()

	if v := next(t, values, "after the expiry"); v.Data != "during" {
		t.Fatalf("after the expiry: %+v, want during", v)
	}
	if rz.SessionID() == session {
		t.Fatalf("still session 0x%x: it was meant to expire", session)
	}
	if err := writer.Write(ctx, "k", "after"); err != nil {
		t.Fatal(err)
	}
	if v := next(t, values, "on the new session"); v.Data != "after" {
		t.Fatalf("on the new session: %+v, want after", v)
	}
}

// The channel closes when the context ends, and when the session closes.
func TestWatchEnds(t *testing.T) {
	t.Parallel()
	rz := client(t, server(t), 2*time.Second)
	store := newStore(t, rz, fresh("/t-ends"))
	ctx, cancel := context.WithCancel(context.Background())
	values, err := store.Watch(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	next(t, values, "start")
	cancel()
	drained(t, values, "after cancel")

	values, err = store.Watch(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	next(t, values, "start")
	if store.Err() != nil {
		t.Fatalf("Err before Close: %v, want nil", store.Err())
	}
	rz.Close()
	drained(t, values, "after Close")
	select {
	case <-store.Done():
	default:
		t.Fatal("the Store is not Done after its client's Close")
	}
	if !errors.Is(store.Err(), recoverable.ErrClosed) {
		t.Fatalf("Err after Close: %v, want recoverable.ErrClosed", store.Err())
	}
}

// drained waits for the channel to close.
func drained(t *testing.T, values <-chan config.Value, what string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-values:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("%s: the channel is still open after 5s", what)
		}
	}
}

// eventually polls cond until it holds, or fails the test after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
