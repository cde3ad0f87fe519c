package main

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// NTP or an operator steps the wall clock back by an hour between
// zklock's sending of CMD's deadline and the watchdog's reading of it. The
// watchdog must still kill CMD on time: a kill an hour late, where the
// margin before the session may expire is a tenth of it, lets a second
// holder run beside CMD. Deadlines travel on the monotonic clock, which no
// step moves.
func TestAWallClockStepMovesNoDeadline(t *testing.T) {
	for _, step := range []time.Duration{-time.Hour, time.Hour} {
		var pipe bytes.Buffer
		const ahead = time.Second
		if err := sendDeadline(&pipe, time.Now().Add(ahead)); err != nil {
			t.Fatal(err)
		}
		m, ok := <-readMessages(io.NopCloser(&pipe))
		if !ok {
			t.Fatal("no message on the pipe")
		}
		stepped := clock{wall: func() time.Time { return time.Now().Add(step) }, monotonic: systemClock.monotonic}
		if left := stepped.timeLeft(time.Duration(m)); left > ahead || left < ahead-100*time.Millisecond {
			t.Errorf("wall clock stepped by %v: the watchdog would kill CMD in %v, want %v less the pipe's delay", step, left, ahead)
		}
	}
}

// Orders and deadlines share the pipe: no deadline reads as an order.
func TestADeadlineIsNeverAnOrder(t *testing.T) {
	var pipe bytes.Buffer
	if err := sendDeadline(&pipe, time.Now()); err != nil {
		t.Fatal(err)
	}
	if m := <-readMessages(io.NopCloser(&pipe)); m <= orderPause {
		t.Fatalf("a deadline reads as %d, an order", m)
	}
}
