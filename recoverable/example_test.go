package recoverable_test

import (
	"context"
	"fmt"
	"time"

	"zkspeaker/recoverable"
)

// The articles' RetryCounter: an operation that fails with a connection
// loss is retried, each time after twice the sleep before, up to a cap,
// until the retries run out. Without jitter the sleeps are exact. It needs
// no server, so it runs under -short too.
func ExampleRetryCounter() {
	retries := recoverable.RetryCounterFactory{MaxRetries: 4, Interval: 100 * time.Millisecond, MaxSleep: time.Second}
	counter := retries.Create()
	for counter.ShouldRetry() {
		fmt.Printf("attempt %d failed; sleeping %v\n", counter.AttemptTimes(), counter.Backoff())
		counter.UseRetry()
	}
	fmt.Printf("attempt %d failed; no retries left\n", counter.AttemptTimes())
	// Output:
	// attempt 1 failed; sleeping 200ms
	// attempt 2 failed; sleeping 400ms
	// attempt 3 failed; sleeping 800ms
	// attempt 4 failed; sleeping 1s
	// attempt 5 failed; no retries left
}

// A sleep between retries ends as soon as its context does, so that a
// process shutting down is never held up by a long backoff.
func ExampleRetryCounter_SleepUntilNextRetry() {
	counter := recoverable.NewRetryCounter(3, time.Hour, 0, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := counter.SleepUntilNextRetry(ctx)
	fmt.Println(err, time.Since(start) < time.Minute)
	// Output:
	// context deadline exceeded true
}
