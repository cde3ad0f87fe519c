package zktest

import (
	"context"
	"testing"
	"time"

	"zkspeaker/recoverable"
)

// Connect opens a session on servers and waits for it; the test's cleanup
// closes it. Its operations retry patiently (20 times, 50 ms to 500 ms), so
// that a test's own reads ride out the faults it injects.
func Connect(t testing.TB, servers []string, timeout time.Duration) *recoverable.RecoverableZookeeper {
	t.Helper()
	rz, err := recoverable.Connect(servers, timeout, recoverable.WithLogger(Logger(t)),
		recoverable.WithRetry(recoverable.RetryCounterFactory{MaxRetries: 20, Interval: 50 * time.Millisecond, MaxSleep: 500 * time.Millisecond}))
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
