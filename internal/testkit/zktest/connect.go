package zktest

import (
	"context"
	"testing"
	"time"

	"zkspeaker/recoverable"
)

// Connect opens a session on servers and waits for it; the test's cleanup
// closes it. Its operations retry patiently (20 times, 50 ms to 500 ms), so
// that a test's own reads ride out the faults it injects. It logs to the
// test's log; opts come after these defaults and may replace them, as
// recoverable.WithLogger(Logger(t).With("candidate", name)) does, so that
// the lines of the monitors and recipes built on the session name it.
func Connect(t testing.TB, servers []string, timeout time.Duration, opts ...recoverable.Option) *recoverable.RecoverableZookeeper {
	t.Helper()
	all := append([]recoverable.Option{recoverable.WithLogger(Logger(t)),
		recoverable.WithRetry(recoverable.RetryCounterFactory{MaxRetries: 20, Interval: 50 * time.Millisecond, MaxSleep: 500 * time.Millisecond})}, opts...)
	rz, err := recoverable.Connect(servers, timeout, all...)
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
