package recoverable

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// offline is a RecoverableZookeeper with no connection: enough to drive the
// retry loop with operations that fail the way go-zookeeper fails.
func offline(f RetryCounterFactory) *RecoverableZookeeper {
	ready := make(chan struct{})
	close(ready)
	return &RecoverableZookeeper{retry: f, log: slog.New(slog.NewTextHandler(io.Discard, nil)), quit: make(chan struct{}), authReady: ready}
}

func TestRetryRetriesOnlyWhatARetryCanCure(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 3, Interval: time.Millisecond})
	for _, tc := range []struct {
		err       error
		wantCalls int
	}{
		{zk.ErrConnectionClosed, 4},
		{zk.ErrNoServer, 4},
		{zk.ErrSessionExpired, 1},
		{zk.ErrAuthFailed, 1},
		{zk.ErrNoNode, 1},
		{zk.ErrNodeExists, 1},
		{zk.ErrBadVersion, 1},
		// The caller's own deadline passes for a net.Error (a timeout),
		// but no retry can beat it.
		{context.DeadlineExceeded, 1},
		{context.Canceled, 1},
	} {
		calls := 0
		_, attempts, err := retry(context.Background(), r, "op", "/p", func() (int, error) {
			calls++
			return 0, tc.err
		})
		if calls != tc.wantCalls || attempts != calls {
			t.Errorf("%v: %d calls (%d attempts), want %d", tc.err, calls, attempts, tc.wantCalls)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: error %v does not wrap it", tc.err, err)
		}
		if retryable := tc.wantCalls > 1; errors.Is(err, ErrRetriesExhausted) != retryable {
			t.Errorf("%v: ErrRetriesExhausted = %v, want %v", tc.err, errors.Is(err, ErrRetriesExhausted), retryable)
		}
	}
}

// A client made with no retries at all exhausts none: its one failed
// attempt is reported as it is, not as "retries exhausted after 1
// attempts", which a caller retrying on its own would log on every try.
func TestNoRetriesExhaustsNone(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 0, Interval: time.Millisecond})
	_, attempts, err := retry(context.Background(), r, "set", "/p", func() (int, error) { return 0, zk.ErrNoServer })
	if attempts != 1 || !errors.Is(err, zk.ErrNoServer) || errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("%d attempts, %v; want one attempt failing with zk.ErrNoServer alone", attempts, err)
	}
}

func TestRetrySucceedsAfterTransientLoss(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 5, Interval: time.Millisecond})
	calls := 0
	v, attempts, err := retry(context.Background(), r, "op", "/p", func() (string, error) {
		calls++
		if calls < 3 {
			return "", zk.ErrConnectionClosed
		}
		return "ok", nil
	})
	if v != "ok" || err != nil || attempts != 3 {
		t.Fatalf("retry = %q, %d attempts, %v; want ok after 3", v, attempts, err)
	}
}

func TestCancelledContextEndsRetryLoopAtOnce(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 1000, Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := retry(ctx, r, "op", "/p", func() (int, error) { return 0, zk.ErrConnectionClosed })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("retry loop took %v to notice the cancel", d)
	}
	// A call stuck inside go-zookeeper is abandoned too.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	block := make(chan struct{})
	defer close(block)
	if _, err := call(ctx, r, func() (int, error) { <-block; return 0, nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("blocked call = %v, want context.DeadlineExceeded", err)
	}
}

func TestClosedClientNeverRetries(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 5, Interval: time.Millisecond})
	close(r.quit)
	calls := 0
	_, _, err := retry(context.Background(), r, "op", "/p", func() (int, error) { calls++; return 0, zk.ErrConnectionClosed })
	if !errors.Is(err, ErrClosed) || calls != 0 {
		t.Fatalf("after Close: %d calls, err %v; want none and ErrClosed", calls, err)
	}
}

// A create that met a node which is gone by the time it looked tries again
// at once: no backoff, but a retry used, so that a node that comes and goes
// for ever cannot keep it going; the last node-exists is its answer.
func TestAgainRetriesAtOnceWithinTheCounter(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 3, Interval: time.Hour})
	calls := 0
	start := time.Now()
	_, attempts, err := retry(context.Background(), r, "create", "/p", func() (int, error) {
		calls++
		return 0, again(zk.ErrNodeExists)
	})
	if calls != 4 || attempts != 4 || !errors.Is(err, zk.ErrNodeExists) || errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("%d calls, %d attempts, %v; want 4 of each ending in node-exists alone", calls, attempts, err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("took %v: again slept a backoff", d)
	}
	if got := r.Retries()["create"]; got != 0 {
		t.Fatalf("Retries counted %d: an attempt again is no retry after a lost connection", got)
	}
}

// An attempt whose own look already used up its retries ends the operation,
// however retryable its error: the retries would multiply.
func TestFinalEndsTheLoopOnARetryableError(t *testing.T) {
	t.Parallel()
	r := offline(RetryCounterFactory{MaxRetries: 3, Interval: time.Millisecond})
	calls := 0
	_, attempts, err := retry(context.Background(), r, "create", "/p", func() (int, error) {
		calls++
		return 0, final(zk.ErrConnectionClosed)
	})
	if calls != 1 || attempts != 1 || !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("%d calls, %d attempts, %v; want one ending in the connection loss", calls, attempts, err)
	}
}
