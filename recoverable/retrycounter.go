package recoverable

import (
	"context"
	"math/rand"
	"time"
)

// RetryCounter counts the retries of one operation and sleeps between them
// with exponential backoff. It is the HBase class from the articles: the n-th
// sleep lasts interval * 2^n, so the first retry waits twice the interval.
// The later HBase form adds a cap on each sleep and optional jitter, so that
// many clients cut off at once do not come back in lockstep.
//
// A RetryCounter serves one operation and one goroutine; make a fresh one
// with RetryCounterFactory.Create for every call.
type RetryCounter struct {
	maxRetries       int
	retriesRemaining int
	interval         time.Duration
	maxSleep         time.Duration
	jitter           float64
	random           func() float64
}

// NewRetryCounter returns a counter that allows maxRetries retries, starting
// from interval. A maxSleep of 0 leaves the sleeps uncapped; jitter, between
// 0 and 1, shortens each sleep by a random fraction of up to that much.
func NewRetryCounter(maxRetries int, interval, maxSleep time.Duration, jitter float64) *RetryCounter {
	if maxRetries < 0 {
		maxRetries = 0
	}
	if jitter < 0 {
		jitter = 0
	}
	if jitter > 1 {
		jitter = 1
	}
	return &RetryCounter{
		maxRetries:       maxRetries,
		retriesRemaining: maxRetries,
		interval:         interval,
		maxSleep:         maxSleep,
		jitter:           jitter,
		random:           rand.Float64,
	}
}

// MaxRetries returns how many retries the counter allows in all.
func (r *RetryCounter) MaxRetries() int { return r.maxRetries }

// ShouldRetry reports whether a retry is left.
func (r *RetryCounter) ShouldRetry() bool { return r.retriesRemaining > 0 }

// UseRetry spends one retry.
func (r *RetryCounter) UseRetry() {
	if r.retriesRemaining > 0 {
		r.retriesRemaining--
	}
}

// AttemptTimes returns the number of the attempt about to be retried: 1
// before any retry was used, as in HBase.
func (r *RetryCounter) AttemptTimes() int { return r.maxRetries - r.retriesRemaining + 1 }

// Backoff returns how long SleepUntilNextRetry would sleep now, before
// jitter: interval * 2^AttemptTimes, capped by the max sleep.
func (r *RetryCounter) Backoff() time.Duration {
	sleep := r.interval
	for i := 0; i < r.AttemptTimes(); i++ {
		if r.maxSleep > 0 && sleep >= r.maxSleep {
			break
		}
		if sleep > time.Duration(1<<62)/2 { // doubling again would overflow
			break
		}
		sleep *= 2
	}
	if r.maxSleep > 0 && sleep > r.maxSleep {
		sleep = r.maxSleep
	}
	return sleep
}

// nextSleep is Backoff with the jitter applied: a random duration in
// [backoff*(1-jitter), backoff].
func (r *RetryCounter) nextSleep() time.Duration {
	sleep := r.Backoff()
	if r.jitter > 0 {
		sleep -= time.Duration(float64(sleep) * r.jitter * r.random())
	}
	return sleep
}

// SleepUntilNextRetry sleeps for the current backoff and returns nil, or
// returns ctx's error as soon as ctx is done, so that shutdown is never held
// up by a long backoff.
func (r *RetryCounter) SleepUntilNextRetry(ctx context.Context) error {
	return sleepCtx(ctx, r.nextSleep())
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RetryCounterFactory makes one RetryCounter per operation with the same
// settings, as the article's factory does.
type RetryCounterFactory struct {
	// MaxRetries is how many times one operation is retried.
	MaxRetries int
	// Interval is the base of the exponential backoff.
	Interval time.Duration
	// MaxSleep caps each sleep; 0 means no cap.
	MaxSleep time.Duration
	// Jitter, from 0 to 1, is the largest fraction cut at random from a sleep.
	Jitter float64
}

// DefaultRetryCounterFactory returns the settings the speaker command uses
// by default: 5 retries from 100 ms, each sleep at most 2 s, 20% jitter.
func DefaultRetryCounterFactory() RetryCounterFactory {
	return RetryCounterFactory{MaxRetries: 5, Interval: 100 * time.Millisecond, MaxSleep: 2 * time.Second, Jitter: 0.2}
}

// Create returns a fresh RetryCounter for one operation.
func (f RetryCounterFactory) Create() *RetryCounter {
	return NewRetryCounter(f.MaxRetries, f.Interval, f.MaxSleep, f.Jitter)
}
