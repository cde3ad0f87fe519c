package queue_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// A take's delete is applied and its reply lost, and the taker is cut off
// until its session expires, while another handle, which reaps the
// ledgers of handles gone for good, is open. Back within its grace (its
// session timeout after the expiry), the taker finds its ledger and gets
// the item: the reaper spared it. Back later, its ledger is gone, and the
// take is ErrUnsettled: the answer is lost, never guessed, and nobody
// else gets the item. Either way, the taker's next call works.
func TestAReaperSparesALedgerForItsGrace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		session time.Duration
		reaped  bool
	}{{"back within the grace", 4 * time.Second, false}, {"back after it", sessionTimeout, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := zktest.Path(t)
			server := zktest.Shared(t).Servers()
			other := open(t, connect(t, server), path)
			rz := connect(t, server)
			proxy := zktest.NewProxy(t, server[0])
			taker := zktest.Connect(t, []string{proxy.Addr()}, tc.session, patient())
			before := ledgers(t, rz, path)
			q := open(t, taker, path)
			mine := slices.DeleteFunc(ledgers(t, rz, path), func(l string) bool { return slices.Contains(before, l) })
			put(t, other, "only", 0)
			sid := taker.SessionID()

			applied, restore := loseNextMulti(proxy)
			type answer struct {
				it  *queue.Item
				err error
			}
			got := make(chan answer, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				it, err := q.Take(ctx)
				got <- answer{it, err}
			}()
			<-applied
			proxy.Reset()
			expiry := taker.SessionTimeout() + zktest.TickTime + electiontest.Slack
			if tc.reaped {
				// The reaper looks every half of its session timeout, and
				// deletes after the owner's grace.
				gone(t, rz, path, mine[0], expiry+2*sessionTimeout+taker.SessionTimeout()+electiontest.Slack)
			} else {
				time.Sleep(expiry)
			}
			restore()
			a := <-got
			switch {
			case tc.reaped && !errors.Is(a.err, queue.ErrUnsettled):
				t.Fatalf("take with its ledger reaped: %v, %v; want ErrUnsettled", a.it, a.err)
			case !tc.reaped && (a.err != nil || string(a.it.Value) != "only"):
				t.Fatalf("take back within the grace: %v, %v; want the item", a.it, a.err)
			}
			if taker.SessionID() == sid {
				t.Fatalf("session %#x did not expire", sid)
			}
			empty(t, other, electiontest.Slack) // nobody else gets it
			put(t, q, "next", 0)                // the taker's next call, on a new ledger if reaped
			now := ledgers(t, rz, path)
			if slices.Contains(now, mine[0]) == tc.reaped || len(now) != len(before)+1 {
				t.Fatalf("ledgers %v (before the taker %v, the taker's %s)", now, before, mine[0])
			}
			if it := take(t, q, 10*time.Second); string(it.Value) != "next" {
				t.Fatalf("took %q, want the taker's own next", it.Value) // and leave the path empty for -count
			}
		})
	}
}

// ledgers lists the ledgers of the queue at path.
func ledgers(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := queue.Ledgers(ctx, rz, path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gone waits until the ledger called name is gone, for at most d.
func gone(t *testing.T, rz *recoverable.RecoverableZookeeper, path, name string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for slices.Contains(ledgers(t, rz, path), name) {
		if time.Now().After(deadline) {
			t.Fatalf("ledger %s still there %v after its owner was cut off", name, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
