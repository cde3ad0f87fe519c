package main_test

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// A consumer killed (SIGKILL) in the middle of a take leaves its ledger
// under P/ledgers, a persistent znode no Close deleted. Once its session
// has ended, another handle open on the queue reaps it after a grace of
// the dead handle's session timeout: nothing of the killed consumer is
// left under P, and the consumer still running keeps its own ledger.
func TestAKilledConsumersLedgerIsReaped(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	s, p := servers[0], zktest.Path(t)
	rz := zktest.Connect(t, servers, 4*time.Second)
	ok(t, "put", "-s", s, p, "job-1")
	before := tree(t, rz, p)
	killed := zktest.Run(t, bin, "take", "-s", s, "--session-timeout", "2s", "--follow", "--delivery", "at-least-once", "--work", "1h", p)
	waitOut(t, killed, "job-1\n", 20*time.Second)
	dead := slices.DeleteFunc(tree(t, rz, p), func(z string) bool { return slices.Contains(before, z) }) // its ledger, marker and claim
	killed.Signal(syscall.SIGKILL)
	exitWithin(t, killed, 10*time.Second)

	alive := zktest.Run(t, bin, "take", "-s", s, "--session-timeout", "2s", "--follow", p)
	waitOut(t, alive, "job-1\n", 20*time.Second) // the claim went with the killed session
	// The session ends within its timeout and a tick; the reaper, which
	// looks every half of its session timeout, sees the ledger without a
	// marker, and deletes it a grace of the owner's timeout later.
	session := 2 * time.Second
	bound := session + zktest.TickTime + session + session + electiontest.Slack
	deadline := time.Now().Add(bound)
	for {
		now := tree(t, rz, p)
		left := slices.DeleteFunc(slices.Clone(dead), func(z string) bool { return !slices.Contains(now, z) })
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after the kill, the killed consumer's znodes are still there: %v (all under %s: %v)", bound, left, p, now)
		}
		time.Sleep(50 * time.Millisecond)
	}
	alive.Term()
	if code := exitWithin(t, alive, 10*time.Second); code != 0 {
		t.Fatalf("take --follow on SIGTERM: status %d\n%s", code, alive.Stderr())
	}
	if now := tree(t, rz, p); !slices.Equal(now, []string{p + "/ledgers"}) {
		t.Fatalf("once every consumer ended, %s holds %v, want its ledgers' znode alone", p, now)
	}
}

// tree lists every znode below path, depth first.
func tree(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	children, err := rz.Children(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range children {
		out = append(out, path+"/"+c)
		out = append(out, tree(t, rz, path+"/"+c)...)
	}
	slices.Sort(out)
	return out
}
