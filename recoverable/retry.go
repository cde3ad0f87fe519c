package recoverable

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// retry runs op until it succeeds, fails for good, or the RetryCounter runs
// out: the article's loop, the one every operation of the package goes
// through. Only IsRetryable errors are retried, unless op says otherwise
// with an outcome. It returns how many attempts were made along with op's
// result.
func retry[T any](ctx context.Context, r *RecoverableZookeeper, name, path string, op func() (T, error)) (T, int, error) {
	counter := r.retry.Create()
	for attempts := 1; ; attempts++ {
		v, err := call(ctx, r, op)
		// Only op's own answer is an outcome: one that call wrapped (the
		// client closed meanwhile) is read as any other error.
		o, _ := err.(*outcome) //nolint:errorlint
		switch {
		case o != nil && !o.again:
			return v, attempts, o.err
		case o != nil:
			if !counter.ShouldRetry() {
				return v, attempts, o.err
			}
			counter.UseRetry()
			continue
		case err == nil || !IsRetryable(err):
			return v, attempts, err
		}
		if err := r.backoff(ctx, counter, name, path, attempts, err); err != nil {
			return v, attempts, err
		}
	}
}

// outcome is an attempt's error that tells retry what to do with it, for
// an operation that knows more than IsRetryable: after a node-exists, a
// create may look at the node it met, and either try again or stop.
type outcome struct {
	err   error
	again bool
}

// again asks retry for another attempt at once, without the backoff, as
// what the attempt met has changed since (the node it met is gone). It
// still uses a retry, so that it cannot go on for ever; when none is left,
// err is the operation's error.
func again(err error) error { return &outcome{err: err, again: true} }

// final ends the operation with err, however retryable it looks: the
// retries of another operation are already behind it.
func final(err error) error { return &outcome{err: err} }

// Error is the error of the attempt.
func (o *outcome) Error() string { return o.err.Error() }

// Unwrap returns the error of the attempt.
func (o *outcome) Unwrap() error { return o.err }

// backoff is the article's "sleep, then use a retry" step after a retryable
// error. It returns an error, and the caller gives up, when no retry is left
// or ctx is done.
func (r *RecoverableZookeeper) backoff(ctx context.Context, counter *RetryCounter, name, path string, attempts int, cause error) error {
	if counter.MaxRetries() == 0 {
		return cause // one attempt was all it had: nothing was exhausted
	}
	if !counter.ShouldRetry() {
		return fmt.Errorf("%s %s: %w after %d attempts: %w", name, path, ErrRetriesExhausted, attempts, cause)
	}
	r.log.Info("lost the connection to ZooKeeper; trying the operation again", "op", name, "path", path,
		"retry", fmt.Sprintf("%d of %d", counter.AttemptTimes(), counter.MaxRetries()), "wait", counter.Backoff(), "error", cause)
	if err := counter.SleepUntilNextRetry(ctx); err != nil {
		return err
	}
	counter.UseRetry()
	r.retries.note(name)
	return nil
}

// retried marks an error met on a retry of a write that was sent before.
func retried(attempts int, err error) error {
	if err == nil || attempts < 2 || !errors.Is(err, zk.ErrBadVersion) && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrRetried, err)
}
