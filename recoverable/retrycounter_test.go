package recoverable

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRetryCounterBackoffDoublesFromTwiceTheInterval(t *testing.T) {
	t.Parallel()
	c := NewRetryCounter(4, 100*time.Millisecond, 0, 0)
	want := []time.Duration{200, 400, 800, 1600}
	for i, w := range want {
		if !c.ShouldRetry() {
			t.Fatalf("retry %d: ShouldRetry = false, want true", i+1)
		}
		if got := c.AttemptTimes(); got != i+1 {
			t.Fatalf("retry %d: AttemptTimes = %d", i+1, got)
		}
		if got := c.Backoff(); got != w*time.Millisecond {
			t.Fatalf("retry %d: Backoff = %v, want %v", i+1, got, w*time.Millisecond)
		}
		c.UseRetry()
	}
	if c.ShouldRetry() {
		t.Fatal("ShouldRetry = true after every retry was used")
	}
	if got := c.AttemptTimes(); got != 5 {
		t.Fatalf("AttemptTimes after all retries = %d, want 5", got)
	}
}

func TestRetryCounterBackoffIsCapped(t *testing.T) {
	t.Parallel()
	c := NewRetryCounter(100, 100*time.Millisecond, time.Second, 0)
	var got []time.Duration
	for c.ShouldRetry() && len(got) < 6 {
		got = append(got, c.Backoff())
		c.UseRetry()
	}
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second, time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoff sequence = %v, want %v", got, want)
		}
	}
	// Far past the cap, and past where doubling would overflow, it stays capped.
	for i := 0; i < 90; i++ {
		c.UseRetry()
	}
	if b := c.Backoff(); b != time.Second {
		t.Fatalf("backoff after 96 retries = %v, want the 1s cap", b)
	}
	uncapped := NewRetryCounter(200, time.Second, 0, 0)
	for i := 0; i < 150; i++ {
		uncapped.UseRetry()
	}
	if b := uncapped.Backoff(); b <= 0 {
		t.Fatalf("uncapped backoff overflowed to %v", b)
	}
}

func TestRetryCounterJitterStaysInRange(t *testing.T) {
	t.Parallel()
	c := NewRetryCounter(3, 100*time.Millisecond, 0, 0.5)
	for _, r := range []float64{0, 0.5, 0.999} {
		c.random = func() float64 { return r }
		got := c.nextSleep()
		want := 200*time.Millisecond - time.Duration(float64(200*time.Millisecond)*0.5*r)
		if got != want {
			t.Fatalf("random %v: sleep = %v, want %v", r, got, want)
		}
		if got < 100*time.Millisecond || got > 200*time.Millisecond {
			t.Fatalf("random %v: sleep %v outside [100ms, 200ms]", r, got)
		}
	}
	// Out-of-range settings are clamped rather than trusted.
	if c := NewRetryCounter(-1, time.Millisecond, 0, 7); c.MaxRetries() != 0 || c.jitter != 1 || c.ShouldRetry() {
		t.Fatalf("clamping failed: max=%d jitter=%v", c.MaxRetries(), c.jitter)
	}
}

func TestRetryCounterSleepEndsWhenContextIsCancelled(t *testing.T) {
	t.Parallel()
	c := NewRetryCounter(1, time.Hour, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := c.SleepUntilNextRetry(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("SleepUntilNextRetry = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("sleep lasted %v after cancel", d)
	}
}

func TestRetryCounterFactoryMakesIndependentCounters(t *testing.T) {
	t.Parallel()
	f := RetryCounterFactory{MaxRetries: 2, Interval: 10 * time.Millisecond}
	a, b := f.Create(), f.Create()
	a.UseRetry()
	a.UseRetry()
	if a.ShouldRetry() || !b.ShouldRetry() || b.AttemptTimes() != 1 {
		t.Fatalf("counters share state: a.ShouldRetry=%v b.ShouldRetry=%v b.AttemptTimes=%d", a.ShouldRetry(), b.ShouldRetry(), b.AttemptTimes())
	}
}
