package leakcheck

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// The check must be able to fail: a goroutine left blocked is reported,
// with its stack, and is no longer once it has ended.
func TestALeftGoroutineIsFoundAndAnEndedOneIsNot(t *testing.T) {
	stop := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		blockedUntilStopped(stop)
	}()
	leaks := Leaked(100 * time.Millisecond)
	if len(leaks) != 1 || !strings.Contains(leaks[0], "blockedUntilStopped") {
		t.Fatalf("Leaked() = %q, want exactly the blocked goroutine", leaks)
	}
	close(stop)
	<-ended
	if leaks := Leaked(time.Second); len(leaks) != 0 {
		t.Fatalf("after it ended, Leaked() = %q", leaks)
	}
}

func blockedUntilStopped(stop <-chan struct{}) { <-stop }
