package barrier_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// session is the session timeout of the tests' clients.
const session = 2 * time.Second

// connect is a session of its own on the shared server.
func connect(t *testing.T) *recoverable.RecoverableZookeeper {
	t.Helper()
	return zktest.Connect(t, zktest.Shared(t).Servers(), session)
}

// member is a member, on a session of its own, of the double barrier at
// path that waits for count.
func member(t *testing.T, path string, count int) (*barrier.DoubleBarrier, *recoverable.RecoverableZookeeper) {
	t.Helper()
	rz := connect(t)
	b, err := barrier.NewDouble(rz, path, count)
	if err != nil {
		t.Fatal(err)
	}
	return b, rz
}

// async runs f on a goroutine; its error comes on the channel.
func async(ctx context.Context, f func(context.Context) error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f(ctx) }()
	return ch
}

// returned waits for an async call's error, within limit.
func returned(t *testing.T, ch <-chan error, limit time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(limit):
		t.Fatalf("%s did not return within %v", what, limit)
		return nil
	}
}

// waiting checks that an async call has not returned.
func waiting(t *testing.T, ch <-chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s returned (%v) while it should wait", what, err)
	default:
	}
}

// awaitWatch waits until rz's session watches exactly the one znode want,
// on the shared server (wchc): the member has decided to wait, on it.
func awaitWatch(t *testing.T, rz *recoverable.RecoverableZookeeper, want string) {
	t.Helper()
	addr := zktest.Shared(t).Server(0)
	deadline := time.Now().Add(10 * session)
	var got []string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), session)
		all, err := fourletter.Watches(ctx, addr)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		got = all[rz.SessionID()]
		if slices.Equal(got, []string{want}) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("session 0x%x watches %q, want only %s", rz.SessionID(), got, want)
}

// children lists path's children.
func children(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*session)
	defer cancel()
	c, err := rz.Children(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(c)
	return c
}
