package broadcast

import (
	"context"
	"testing"
	"time"
)

func newInts() *Broadcaster[int] { return New(0, func(v int) bool { return v < 0 }) }

func TestEveryValueReachesASlowObserver(t *testing.T) {
	b := newInts()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	values := b.Observe(ctx)
	// Far more than go-zookeeper's 6-slot channel, published before anyone reads.
	for i := 1; i <= 100; i++ {
		b.Publish(i)
	}
	if first := <-values; first != 0 {
		t.Fatalf("first value = %d, want the value at subscription (0)", first)
	}
	for i := 1; i <= 100; i++ {
		if v := <-values; v != i {
			t.Fatalf("value %d arrived as %d: lost or reordered", i, v)
		}
	}
	go b.Close(-1, time.Second)
	if v := <-values; v != -1 {
		t.Fatalf("last value = %d, want the final -1", v)
	}
	if _, ok := <-values; ok {
		t.Fatal("channel still open after the final value")
	}
	if b.Current() != -1 {
		t.Fatalf("Current() = %d after Close, want -1", b.Current())
	}
}

func TestObserverEndsWithItsContext(t *testing.T) {
	b := newInts()
	ctx, cancel := context.WithCancel(context.Background())
	values := b.Observe(ctx)
	<-values // the current value
	cancel()
	select {
	case _, ok := <-values:
		if ok {
			t.Fatal("got a value after cancel, want the channel closed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("channel not closed 5s after its context was cancelled")
	}
	done := make(chan struct{})
	go func() { b.Close(-1, time.Second); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if _, ok := <-b.Observe(context.Background()); ok {
		t.Fatal("Observe after Close returned an open channel")
	}
}
