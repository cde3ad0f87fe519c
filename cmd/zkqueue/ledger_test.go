package main_test

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

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

// A put stopped by SIGTERM while the answer to its create is on the way
// settles the put by its ledger and deletes the ledger before it exits:
// nothing is left for a reaper (no other handle is open to reap it).
func TestAPutStoppedBySIGTERMDeletesItsLedger(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	s, p := servers[0], zktest.Path(t)
	rz := zktest.Connect(t, servers, 4*time.Second)
	ok(t, "put", "-s", s, p, "warm-up") // the queue and its ledgers' znode
	proxy := zktest.NewProxy(t, s)
	// The first multi is New's marker; its answer's second on the way
	// leaves room to hold the next, the put's.
	proxy.SetReplyLatency(time.Second)
	marked := proxy.NotifyReply(zktest.OpMulti)
	put := zktest.Run(t, bin, "put", "-s", proxy.Addr(), p, "stopped")
	wait(t, marked, "New's marker")
	applied, release := proxy.HoldReply(zktest.OpMulti)
	wait(t, applied, "the put's create")
	put.Term()
	proxy.Reset()
	proxy.SetReplyLatency(0)
	release()
	proxy.Restore()
	exitWithin(t, put, 20*time.Second)
	if left := tree(t, rz, p+"/ledgers"); len(left) != 0 {
		t.Fatalf("after the stopped put, its ledger is left: %v\nstderr:\n%s", left, put.Stderr())
	}
}

// wait waits for ch, for at most 20 s.
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s never reached the proxy", what)
	}
}

// tree lists every znode below path, depth first.
func tree(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	children, err := rz.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil // deleted since its parent was listed: a reaper at work
	}
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
