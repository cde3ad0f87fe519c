package live

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
)

// contender is a lock contender as lock.Inspect gives it: name, kind,
// whether it holds and the znode it waits for.
func contender(name, kind string, seq int64, holds bool, waits string) lock.Contender {
	c := nodemonitor.Candidate{Name: fmt.Sprintf("%s%010d", kind, seq), Seq: seq, Kind: kind}
	return lock.Contender{Seat: nodemonitor.Seat{Candidate: c, Data: name, Czxid: 100 + seq}, Holds: holds, Waits: waits}
}

// drawn is each candidate of a line as name=role/mode>the name it waits for.
func drawn(cs []Candidate) string {
	var out []string
	for _, c := range cs {
		s := c.Name + "=" + c.Role + "/" + c.Mode
		if i := slices.IndexFunc(cs, func(o Candidate) bool { return o.Znode == c.Waits }); i >= 0 {
			s += ">" + cs[i].Name
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// The lock panel draws readers and writers as the lock's rules stood them,
// several holders at once, and the log tells each holder, a revoke request
// and the lock left without a holder.
func TestALockIsDrawnAndToldHolderByHolder(t *testing.T) {
	h := NewHub()
	rw := func(cs ...lock.Contender) func(*parts) {
		return func(p *parts) { p.lock = &lock.View{Path: "/report", Exists: true, Line: cs} }
	}
	ann, bob := contender("ann", "read-", 0, true, ""), contender("bob", "read-", 1, true, "")
	carol := contender("carol", "n_", 2, false, bob.Name)
	dave := contender("dave", "read-", 3, false, carol.Name)
	t0 := time.UnixMilli(1_000_000)
	clock := t0
	h.now = func() time.Time { clock = clock.Add(time.Microsecond); return clock } // moves at every reading
	h.update(t0, "lock", rw(ann, bob, carol, dave))
	b := h.Board()
	if got, want := drawn(b.Lock.Candidates), "ann=holder/read bob=holder/read carol=waiting/write>bob dave=waiting/read>carol"; got != want {
		t.Fatalf("drawn %s; want %s", got, want)
	}
	bob.Revoke, bob.RevokeBy = true, "carol"
	h.update(t0.Add(time.Second), "lock", rw(ann, bob, carol, dave))
	h.update(t0.Add(2*time.Second), "lock", rw(carol, dave)) // carol has not looked yet
	carol.Holds, carol.Waits, dave.Waits = true, "", carol.Name
	h.update(t0.Add(2*time.Second+7*time.Millisecond), "lock", rw(carol, dave))
	h.update(t0.Add(3*time.Second), "lock", rw())
	var told []string
	for _, e := range h.Board().Log {
		if e.Kind == "leader" || e.Kind == "revoke" {
			told = append(told, e.Text)
		}
	}
	want := []string{"ann holds the lock now (read, epoch 0:100), as zkview found it", "bob holds the lock now (read, epoch 0:101), as zkview found it",
		"bob was asked by carol to let go of the lock (a revoke mark on its znode)",
		"nobody holds the lock now", "carol holds the lock now (write, epoch 0:102), after 7 ms without a holder", "nobody holds the lock now"}
	if !slices.Equal(told, want) {
		t.Fatalf("told %q; want %q", told, want)
	}
	var log []string
	for _, e := range h.Board().Log {
		log = append(log, e.Text)
	}
	joined, holds := slices.Index(log, "ann joined the lock /report"), slices.Index(log, want[0])
	if joined < 0 || holds < joined {
		t.Errorf("the log tells ann holding before she joined: %q", log)
	}
}

// A semaphore is drawn as its leases, with N, and its gate; the log tells
// the leases in use as they change.
func TestASemaphoreIsDrawnWithItsLeasesAndGate(t *testing.T) {
	h := NewHub()
	sem := func(line, gate []lock.Contender) func(*parts) {
		return func(p *parts) { p.lock = &lock.View{Path: "/render", Exists: true, Leases: 2, Line: line, Gate: gate} }
	}
	a, b := contender("a", "lease-", 0, true, ""), contender("b", "lease-", 1, true, "")
	c := contender("c", "n_", 2, true, "")
	h.update(time.Now(), "lock", sem([]lock.Contender{a, b}, []lock.Contender{c}))
	h.update(time.Now(), "lock", sem([]lock.Contender{b}, []lock.Contender{c}))
	h.update(time.Now(), "lock", sem([]lock.Contender{b, contender("c", "lease-", 3, true, "")}, nil))
	board := h.Board()
	if got, want := drawn(board.Lock.Candidates)+" gate: "+drawn(board.Lock.Gate), "b=holder/lease c=holder/lease gate: "; got != want || board.Lock.Leases != 2 {
		t.Fatalf("drawn %s, %d leases; want %s, 2 leases", got, board.Lock.Leases, want)
	}
	var told []string
	for _, e := range board.Log {
		told = append(told, e.Text)
	}
	for _, want := range []string{"c joined the semaphore /render", "a left the semaphore", "leases in use: 1 of 2", "c holds a lease now (epoch 0:103)", "leases in use: 2 of 2"} {
		if !slices.Contains(told, want) {
			t.Errorf("the log does not tell %q: %q", want, told)
		}
	}
	if slices.Contains(told, "c left the semaphore") {
		t.Errorf("c, from the gate to a lease, was told as leaving: %q", told)
	}
}
