package lock_test

import (
	"context"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/recipes/lock"
)

// Inspect, from a session that contends for nothing, stands each
// contender as its own rule does: a reader holding, a writer waiting for
// it, readers waiting for the writer (not for the reader just ahead); and its
// watch fires when the holder leaves, after which the writer holds.
func TestInspectStandsReadersAndWritersByTheirRules(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	r1 := line.join("r1", true)
	line.mustHold(r1)
	w := line.join("w", false)
	line.join("r2", true)
	line.join("r3", true)
	v, wake := inspect(t, line)
	want := fmt.Sprintf("r1 read holds | w write waits for %s | r2 read waits for %[2]s | r3 read waits for %[2]s", path.Base(r1.node), path.Base(w.node))
	if got := standing(v.Line); got != want || v.Leases != 0 || len(v.Gate) != 0 {
		t.Fatalf("Inspect: %s (leases %d, gate %d); want %s, no leases, no gate", got, v.Leases, len(v.Gate), want)
	}
	r1.unlock()
	select {
	case <-wake:
	case <-time.After(5*time.Second + electiontest.Slack):
		t.Fatal("Inspect's watch did not fire when the holder left")
	}
	line.mustHold(w)
	v, _ = inspect(t, line)
	want = fmt.Sprintf("w write holds | r2 read waits for %[1]s | r3 read waits for %[1]s", path.Base(w.node))
	if got := standing(v.Line); got != want {
		t.Fatalf("Inspect after r1 left: %s; want %s", got, want)
	}
}

// Of a semaphore, Inspect gives the recorded N, the leases and who holds
// the gate: with two leases taken, the third contender holds the gate and
// waits there; once a lease goes, it holds a lease and the gate is empty.
func TestInspectShowsASemaphoresLeasesAndGate(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	a, b := line.lease("a", 2), line.lease("b", 2)
	line.mustHold(a, b)
	line.lease("c", 2)
	var v lock.View
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		v, _ = inspect(t, line)
		if len(v.Gate) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if got, want := standing(v.Line)+" / gate: "+standing(v.Gate), "a lease holds | b lease holds / gate: c write holds"; v.Leases != 2 || got != want || v.Holders() != 2 {
		t.Fatalf("Inspect: leases %d, %d holders, %s; want leases 2, 2 holders, %s", v.Leases, v.Holders(), got, want)
	}
	a.unlock()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		v, _ = inspect(t, line)
		if standing(v.Line) == "b lease holds | c lease holds" && len(v.Gate) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a's release: %s / gate: %s; want b and c holding leases, nobody at the gate", standing(v.Line), standing(v.Gate))
		}
	}
}

// A revoke request shows on the holder it marks, and Inspect's watch
// fires when it lands: the mark is a change of the holder's data, which
// no children watch tells.
func TestInspectShowsARevokeRequestAsItLands(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	r1 := line.join("r1", true)
	line.mustHold(r1)
	line.join("w", false)
	v, wake := inspect(t, line)
	if v.Line[0].Revoke || v.Line[1].Revoke {
		t.Fatalf("Inspect before any request: revoke %v, %v", v.Line[0].Revoke, v.Line[1].Revoke)
	}
	if _, err := lock.Revoke(line.ctx, line.rz, line.at, lock.RequestedBy("w")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-time.After(5*time.Second + electiontest.Slack):
		t.Fatal("Inspect's watch did not fire when the holder was marked")
	}
	v, _ = inspect(t, line)
	if c := v.Line[0]; c.Data != "r1" || !c.Revoke || c.RevokeBy != "w" || v.Line[1].Revoke {
		t.Fatalf("Inspect after the request: %q revoke %v by %q, the waiter's revoke %v; want \"r1\" asked by w, the waiter not", c.Data, c.Revoke, c.RevokeBy, v.Line[1].Revoke)
	}
}

// inspect reads the line's lock.
func inspect(t *testing.T, line *line) (lock.View, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(line.ctx)
	t.Cleanup(cancel)
	v, wake, err := lock.Inspect(ctx, line.rz, line.at)
	if err != nil || !v.Exists {
		t.Fatalf("Inspect(%s) = exists %v, %v", line.at, v.Exists, err)
	}
	fired := make(chan struct{})
	go func() {
		select {
		case <-wake:
			close(fired)
		case <-ctx.Done():
		}
	}()
	return v, fired
}

// standing is each contender as "name mode holds" or "name mode waits for
// znode", in line order.
func standing(cs []lock.Contender) string {
	var out []string
	for _, c := range cs {
		s := c.Data + " " + c.Mode() + " holds"
		if !c.Holds {
			s = c.Data + " " + c.Mode() + " waits for " + c.Waits
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}
