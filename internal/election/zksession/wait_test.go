package zksession_test

import (
	"context"
	"testing"
	"time"

	"zkspeaker/internal/election"
)

// waitState waits until c is in state want.
func waitState(t *testing.T, c *election.Candidate, want election.State) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for s := range c.Observe(ctx) {
		if s.State == want {
			return
		}
	}
	t.Fatalf("never %v; now %v", want, c.State())
}
