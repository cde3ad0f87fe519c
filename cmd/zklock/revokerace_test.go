package main

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
)

// CMD ends on its own, and a revoke request lands, before the supervisor
// reads either. CMD was not stopped: zklock must exit with CMD's status,
// not 75, which tells a script to run the finished job again, and must
// not log that it stops a CMD that had already ended. The supervisor's
// loop meets both at once; it is run many times, for Go picks at random
// among ready cases.
func TestACMDThatEndedBeforeTheRevokeKeepsItsStatus(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	rz := zktest.Connect(t, cluster.Servers(), session)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lk := lock.New(rz, zktest.Path(t), "ann", lock.Revocable())
	if err := lk.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock(context.Background())
	if _, err := lock.Revoke(ctx, rz, zktest.Path(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lk.Revoked():
	case <-ctx.Done():
		t.Fatal("the holder never heard the revoke request")
	}
	for range 40 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // the watchdog, gone with CMD
		sv := &supervisor{log: slog.New(slog.DiscardHandler), rz: rz, w: w, period: time.Hour, ran: time.Now(),
			last: time.Now().Add(time.Hour), done: make(chan int, 1), why: "CMD exited", renewing: true}
		sv.done <- 3 // CMD's own status, already there
		status, why := sv.loop(ctx, lk)
		_ = w.Close()
		if status != 3 || why == revokedWhy {
			t.Fatalf("CMD ended with 3 before the request was read; zklock ends with status %d because %q, want 3 because CMD exited", status, why)
		}
	}
}
