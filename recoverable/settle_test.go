package recoverable_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// A caller that gave up on a call can wait for it with Settle: with every
// answer held back by the network for L, a read given up on after L/6
// returns at once, and Settle returns only once that read has come back,
// about L after it was sent. With nothing given up on, Settle returns at
// once.
func TestSettleWaitsForCallsGivenUpOn(t *testing.T) {
	t.Parallel()
	const latency = 600 * time.Millisecond
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	rz := connect(t, []string{proxy.Addr()}, 10*time.Second)
	ctx := testCtx(t)
	if err := rz.Settle(ctx); err != nil {
		t.Fatalf("Settle with nothing given up on: %v", err)
	}
	proxy.SetReplyLatency(latency)

	sent := time.Now()
	short, cancel := context.WithTimeout(ctx, latency/6)
	_, _, err := rz.Exists(short, "/")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Exists with a deadline shorter than the latency: %v, want the deadline", err)
	}
	gaveUp := time.Since(sent)
	if err := rz.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	settled := time.Since(sent)
	t.Logf("gave up after %v, settled after %v (latency %v)", gaveUp.Round(time.Millisecond), settled.Round(time.Millisecond), latency)
	if gaveUp >= latency/2 {
		t.Fatalf("the call was not given up on before its answer: %v", gaveUp)
	}
	if settled < latency*3/4 {
		t.Errorf("Settle returned %v after the call was sent: before its answer, held back %v, could have come", settled, latency)
	}

	proxy.SetReplyLatency(0)
	start := time.Now()
	if err := rz.Settle(ctx); err != nil || time.Since(start) > latency/2 {
		t.Errorf("Settle once everything came back: %v after %v, want nil at once", err, time.Since(start))
	}
}
