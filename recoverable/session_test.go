package recoverable

import (
	"context"
	"testing"
	"time"
)

func TestBroadcasterDeliversEveryEventToASlowObserver(t *testing.T) {
	b := newBroadcaster()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events := b.observe(ctx)
	// Far more than go-zookeeper's 6-slot channel, published before anyone reads.
	for i := 1; i <= 100; i++ {
		b.publish(SessionEvent{State: StateConnected, SessionID: int64(i)})
	}
	first := <-events
	if first.State != StateConnecting {
		t.Fatalf("first event = %v, want the state at subscription (connecting)", first)
	}
	for i := 1; i <= 100; i++ {
		ev := <-events
		if ev.SessionID != int64(i) {
			t.Fatalf("event %d has session %d: lost or reordered", i, ev.SessionID)
		}
	}
	go b.close(time.Second)
	if ev := <-events; ev.State != StateClosed {
		t.Fatalf("last event = %v, want closed", ev)
	}
	if _, ok := <-events; ok {
		t.Fatal("channel still open after StateClosed")
	}
}

func TestBroadcasterObserverEndsWithItsContext(t *testing.T) {
	b := newBroadcaster()
	ctx, cancel := context.WithCancel(context.Background())
	events := b.observe(ctx)
	<-events // current state
	cancel()
	select {
	case _, ok := <-events:
		if ok {
			t.Fatal("got an event after cancel, want the channel closed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("channel not closed 5s after its context was cancelled")
	}
	done := make(chan struct{})
	go func() { b.close(time.Second); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close did not return")
	}
	if _, ok := <-b.observe(context.Background()); ok {
		t.Fatal("observe after close returned an open channel")
	}
}

func TestSessionStateStrings(t *testing.T) {
	for s, want := range map[SessionState]string{
		StateConnecting: "connecting", StateConnected: "connected", StateDisconnected: "disconnected",
		StateExpired: "expired", StateAuthFailed: "auth-failed", StateClosed: "closed", SessionState(99): "unknown",
	} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
}
