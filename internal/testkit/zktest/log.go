package zktest

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Logger returns a slog.Logger that writes to t.Log while the test runs and
// drops lines afterwards (t.Log panics once a test has ended, and
// go-zookeeper's goroutines can outlive it by a moment).
func Logger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.stop)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

// Write logs p through the test, so that it shows only when the test fails.
func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}
