package queue_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// sessionTimeout is the tests' session timeout; bounds derive from it.
const sessionTimeout = 2 * time.Second

// connect opens a session on servers for the test.
func connect(t *testing.T, servers []string) *recoverable.RecoverableZookeeper {
	t.Helper()
	return zktest.Connect(t, servers, sessionTimeout)
}

// open opens a handle on the queue at path; the test's end closes it.
func open(t *testing.T, rz *recoverable.RecoverableZookeeper, path string, opts ...queue.Option) *queue.Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	q, err := queue.New(ctx, rz, path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = q.Close(ctx)
	})
	return q
}

// put puts value at priority, or fails the test.
func put(t *testing.T, q *queue.Queue, value string, priority int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := q.PutPriority(ctx, []byte(value), priority); err != nil {
		t.Fatal(err)
	}
}

// take takes one item within d, or fails the test.
func take(t *testing.T, q *queue.Queue, d time.Duration) *queue.Item {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	it, err := q.Take(ctx)
	if err != nil {
		t.Fatalf("take: %v", err)
	}
	return it
}

// empty checks that a take finds nothing within d: it waits until then.
func empty(t *testing.T, q *queue.Queue, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if it, err := q.Take(ctx); err == nil {
		t.Fatalf("took %s (%q) from a queue that should be empty", it.Name, it.Value)
	}
}

// list lists the queue at path.
func list(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) []queue.Entry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	entries, err := queue.List(ctx, rz, path)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// quietLog discards the log, for examples and benchmarks.
func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// patient retries for as long as a test's cut lasts, so that a call made
// across it settles rather than giving up.
func patient() recoverable.Option {
	return recoverable.WithRetry(recoverable.RetryCounterFactory{MaxRetries: 1000, Interval: 50 * time.Millisecond, MaxSleep: 200 * time.Millisecond})
}
