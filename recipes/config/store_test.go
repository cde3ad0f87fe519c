package config_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

// server returns the package's real server (TestMain starts it), and
// skips under -short, which starts none.
func server(t *testing.T) []string {
	t.Helper()
	if testing.Short() {
		t.Skip("testing.Short() is set: -short runs unit tests only, and this one needs a real ZooKeeper server")
	}
	return servers
}

// testCtx bounds a test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// client opens a session whose requests are each tried once, as the
// zkconfig commands make them: the retries under test are the Store's.
func client(t *testing.T, servers []string, timeout time.Duration, opts ...recoverable.Option) *recoverable.RecoverableZookeeper {
	t.Helper()
	opts = append([]recoverable.Option{recoverable.WithLogger(zktest.Logger(t)),
		recoverable.WithRetry(recoverable.RetryCounterFactory{MaxRetries: 0, Interval: time.Millisecond})}, opts...)
	rz, err := recoverable.Connect(servers, timeout, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rz.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := rz.WaitConnected(ctx); err != nil {
		t.Fatalf("no session: %v", err)
	}
	return rz
}

// runs numbers the base paths of the tests, so that a test run again on
// the same server (go test -count=2) starts from nothing as the first did.
var runs atomic.Int64

// fresh returns base with a number that no earlier call returned.
func fresh(base string) string { return fmt.Sprintf("%s-%d", base, runs.Add(1)) }

// newStore is a Store under base on rz, logging to the test.
func newStore(t *testing.T, rz *recoverable.RecoverableZookeeper, base string, opts ...config.Option) *config.Store {
	t.Helper()
	s, err := config.New(rz, append([]config.Option{config.WithBase(base)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// raw reads a znode as it is, through a patient client of its own.
func raw(t *testing.T, path string) (string, *zk.Stat) {
	t.Helper()
	rz := zktest.Connect(t, server(t), 4*time.Second)
	data, st, err := rz.Get(testCtx(t), path)
	if err != nil {
		t.Fatalf("get %s: %v", path, err)
	}
	return string(data), st
}

// The first write creates the base path and the key; later ones set it.
// Reads see what was written; a missing key is ErrNotFound.
func TestWriteCreatesThenSets(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	base := fresh("/t-write") + "/nested"
	store := newStore(t, client(t, server(t), 2*time.Second), base)
	if _, err := store.Read(ctx, "colour"); !errors.Is(err, config.ErrNotFound) || !strings.Contains(err.Error(), base+"/colour") {
		t.Fatalf("read before any write: %v, want ErrNotFound naming the znode", err)
	}
	for i, value := range []string{"blue", "green", "green", ""} {
		if err := store.Write(ctx, "colour", value); err != nil {
			t.Fatalf("write %q: %v", value, err)
		}
		data, st := raw(t, base+"/colour")
		if data != value || st.Version != int32(i) {
			t.Fatalf("after write %d: znode holds %q at version %d, want %q at %d", i, data, st.Version, value, i)
		}
		if got, err := store.Read(ctx, "colour"); err != nil || got != value {
			t.Fatalf("read after write %d: %q, %v; want %q", i, got, err, value)
		}
	}
	// Delete is idempotent: the second finds nothing to delete, and says
	// nothing of it.
	for i := 0; i < 2; i++ {
		if err := store.Delete(ctx, "colour"); err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
	}
	if _, err := store.Read(ctx, "colour"); !errors.Is(err, config.ErrNotFound) {
		t.Fatalf("read after the delete: %v, want ErrNotFound", err)
	}
}

// Bad keys and values are refused before any request: nothing is created.
func TestBadKeyOrValueCreatesNothing(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	rz := client(t, server(t), 2*time.Second)
	base := fresh("/t-bad")
	store := newStore(t, rz, base)
	for _, key := range []string{"", "a/b", "..", "a b"} {
		if err := store.Write(ctx, key, "v"); !errors.Is(err, config.ErrInvalidKey) {
			t.Errorf("write to key %q: %v, want ErrInvalidKey", key, err)
		}
		if _, _, err := store.ReadW(ctx, key); !errors.Is(err, config.ErrInvalidKey) {
			t.Errorf("ReadW of key %q: %v, want ErrInvalidKey", key, err)
		}
		if _, err := store.Watch(ctx, key); !errors.Is(err, config.ErrInvalidKey) {
			t.Errorf("Watch of key %q: %v, want ErrInvalidKey", key, err)
		}
	}
	if err := store.Write(ctx, "k", strings.Repeat("x", config.MaxValueLen+1)); !errors.Is(err, config.ErrValueTooLarge) {
		t.Errorf("an oversized value: %v, want ErrValueTooLarge", err)
	}
	if ok, _, err := rz.Exists(ctx, base); err != nil || ok {
		t.Fatalf("%s exists = %v (%v) after refused writes, want nothing created", base, ok, err)
	}
}

// With an ACL, the znodes the Store creates, the base path included, can
// be changed only by that identity, and read by anyone.
func TestWriteCreatesWithTheACL(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	access, _ := recoverable.Access("ann:secret")
	owner := client(t, server(t), 2*time.Second, access...)
	base := fresh("/t-acl")
	store := newStore(t, owner, base)
	if err := store.Write(ctx, "colour", "blue"); err != nil {
		t.Fatal(err)
	}
	stranger := client(t, server(t), 2*time.Second)
	other := newStore(t, stranger, base)
	if got, err := other.Read(ctx, "colour"); err != nil || got != "blue" {
		t.Fatalf("a stranger reads %q, %v; want blue", got, err)
	}
	if err := other.Write(ctx, "colour", "red"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a stranger's write: %v, want zk.ErrNoAuth", err)
	}
	if err := other.Write(ctx, "size", "L"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("a stranger's create under the base: %v, want zk.ErrNoAuth", err)
	}
	if got, _ := raw(t, base+"/colour"); got != "blue" {
		t.Fatalf("after the stranger's tries the key holds %q, want blue", got)
	}
}

// A watch fires once: two writes make one event, and then the channel is
// closed. Only a new read sets a new watch.
func TestReadWFiresOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	store := newStore(t, client(t, server(t), 2*time.Second), fresh("/t-readw"))
	if err := store.Write(ctx, "k", "1"); err != nil {
		t.Fatal(err)
	}
	v, changed, err := store.ReadW(ctx, "k")
	if err != nil || !v.Exists || v.Data != "1" || v.Zxid == 0 {
		t.Fatalf("ReadW = %+v, %v; want 1 with its zxid", v, err)
	}
	for _, value := range []string{"2", "3"} {
		if err := store.Write(ctx, "k", value); err != nil {
			t.Fatal(err)
		}
	}
	var events []zk.EventType
	for ev := range changed {
		events = append(events, ev.Type)
	}
	if len(events) != 1 || events[0] != zk.EventNodeDataChanged {
		t.Fatalf("events %v, want exactly one EventNodeDataChanged", events)
	}
	w, _, err := store.ReadW(ctx, "k")
	if err != nil || w.Data != "3" || w.Zxid <= v.Zxid || w.Version != 2 {
		t.Fatalf("read again: %+v, %v; want 3 at version 2 with a later zxid than %d", w, err, v.Zxid)
	}
}

// The chapter's partial failure: the create reaches the server, which
// applies it, but its reply is lost with the connection. The plain write
// reports a connection loss though its value landed; the resilient write
// writes again, which is safe because the write is idempotent, and lands
// on the set path: the key ends at version 1, written twice, not failed.
func TestLostCreateReply(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	for _, resilient := range []bool{false, true} {
		proxy := zktest.NewProxy(t, server(t)[0])
		rz := client(t, []string{proxy.Addr()}, 4*time.Second)
		var opts []config.Option
		if resilient {
			opts = append(opts, config.WithRetry(recoverable.RetryCounterFactory{MaxRetries: 5, Interval: 50 * time.Millisecond}))
		}
		base := fresh("/t-lost")
		store := newStore(t, rz, base, opts...)
		if err := store.Write(ctx, "other", "x"); err != nil { // the base exists: the trap is the key's create
			t.Fatal(err)
		}
		proxy.ResetAfterCreate(base + "/k")
		err := store.Write(ctx, "k", "v")
		select {
		case <-proxy.Fired():
		default:
			t.Fatalf("resilient=%v: the trap never fired: %v", resilient, err)
		}
		data, st := raw(t, base+"/k")
		if !resilient {
			if !errors.Is(err, config.ErrConnectionLoss) || !errors.Is(err, zk.ErrConnectionClosed) {
				t.Fatalf("plain write after a lost reply: %v, want ErrConnectionLoss wrapping zk.ErrConnectionClosed", err)
			}
			if data != "v" || st.Version != 0 {
				t.Fatalf("plain: the znode holds %q at version %d, want v at 0: the lost create was applied", data, st.Version)
			}
			continue
		}
		if err != nil {
			t.Fatalf("resilient write after a lost reply: %v, want nil", err)
		}
		if data != "v" || st.Version != 1 {
			t.Fatalf("resilient: the znode holds %q at version %d, want v at 1 (created, then set again)", data, st.Version)
		}
	}
}
