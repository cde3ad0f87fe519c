package queue

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// ev is an event of name about value, at step i of the soak.
func ev(name, value string, i int) Event {
	return Event{Name: name, Value: value, At: chaostest.TS(time.Duration(i) * chaostest.Step)}
}

// on is e about the item of priority 0 and sequence number seq.
func on(e Event, seq int) Event { return at(e, 0, seq) }

// at is e about the item of priority p and sequence number seq.
func at(e Event, p, seq int) Event {
	e.Item = fmt.Sprintf("item-%03d-%010d", 999-p, seq)
	return e
}

// findings runs the checker on r and the faults, and returns the findings
// of each section by its name.
func findings(r Record, faults ...chaos.Fault) map[string][]chaos.Finding {
	in := chaos.Input{Record: r, Session: time.Second, Tick: 200 * time.Millisecond, End: chaostest.TS(100 * chaostest.Step), Faults: faults}
	out := map[string][]chaos.Finding{}
	for _, s := range check(in, nil) {
		out[s.What] = s.Found
	}
	return out
}

// A clean record has no findings; each broken promise is found once, in
// its own section.
func TestChecks(t *testing.T) {
	clean := Record{
		Puts:  []Event{ev("p1", "p1-1", 1), ev("p1", "p1-2", 2), ev("p2", "p2-1", 3)},
		Takes: []Event{ev("c1", "p1-1", 4), ev("c2", "p1-2", 5), ev("c1", "p2-1", 7)},
		Acks:  []Event{ev("c1", "p1-1", 6), ev("c2", "p1-2", 8)},
		Left:  []string{"p2-1"}, // c1 held it when stopped: released, back in the queue
	}
	for what, found := range findings(clean) {
		if len(found) != 0 {
			t.Errorf("clean record: %s: %v", what, found)
		}
	}
	for _, tc := range []struct {
		name string
		r    Record
		what string
		word string
	}{
		{"acked twice", Record{Puts: []Event{ev("p1", "p1-1", 1)}, Takes: []Event{ev("c1", "p1-1", 2), ev("c2", "p1-1", 4)},
			Acks: []Event{ev("c1", "p1-1", 3), ev("c2", "p1-1", 5)}}, AckedTwice, "acknowledged already by c1"},
		{"taken while held", Record{Puts: []Event{ev("p1", "p1-1", 1)}, Takes: []Event{ev("c1", "p1-1", 2), ev("c2", "p1-1", 3)},
			Acks: []Event{ev("c1", "p1-1", 4)}}, TakenWhileHeld, "taken by c2 while c1 held it"},
		{"lost", Record{Puts: []Event{ev("p1", "p1-1", 1), ev("p1", "p1-2", 2)}, Takes: []Event{ev("c1", "p1-1", 3)},
			Acks: []Event{ev("c1", "p1-1", 4)}}, Lost, "p1-2, put by p1"},
		{"acked but left", Record{Puts: []Event{ev("p1", "p1-1", 1)}, Takes: []Event{ev("c1", "p1-1", 2)},
			Acks: []Event{ev("c1", "p1-1", 3)}, Left: []string{"p1-1"}}, AckedButLeft, "still in the queue"},
		{"out of order", Record{Puts: []Event{on(ev("p2", "p2-1", 1), 1), on(ev("p1", "p1-1", 2), 2), on(ev("p1", "p1-2", 3), 3)},
			Takes: []Event{on(ev("c1", "p2-1", 4), 1), on(ev("c1", "p1-2", 25), 3), on(ev("c1", "p1-1", 27), 2)},
			Acks:  []Event{ev("c1", "p2-1", 20), ev("c1", "p1-2", 26), ev("c1", "p1-1", 28)}}, OutOfOrder, "c1 took p1-2 (item-999-0000000003) while p1-1"},
		{"priority", Record{Puts: []Event{on(ev("p2", "p2-1", 1), 1), on(ev("p1", "p1-1", 2), 2), at(ev("p1", "p1-2", 3), 5, 3)},
			Takes: []Event{on(ev("c1", "p2-1", 4), 1), on(ev("c1", "p1-1", 25), 2), at(ev("c1", "p1-2", 30), 5, 3)},
			Acks:  []Event{ev("c1", "p2-1", 20), ev("c1", "p1-1", 26), ev("c1", "p1-2", 31)}}, OutOfOrder, "c1 took p1-1 (item-999-0000000002) while p1-2 (item-994-0000000003)"},
		{"not listed", Record{Err: "listing /chaos-queue at the end: no server"}, NotListed, "no server"},
	} {
		got := findings(tc.r)
		if f := got[tc.what]; len(f) != 1 || !strings.Contains(f[0].Detail, tc.word) {
			t.Errorf("%s: %s found %v, want one saying %q", tc.name, tc.what, f, tc.word)
		}
		for what, found := range got {
			if what != tc.what && len(found) != 0 {
				t.Errorf("%s: also %s: %v", tc.name, what, found)
			}
		}
	}
}

// A consumer killed after it took an item explains the item's loss (its
// Ack may have applied unsaid); a consumer killed about when a take
// passed over an earlier item explains it (it may have claimed it
// unsaid); and an item held until its claim was lost may be taken after
// a later one.
func TestKillsExplain(t *testing.T) {
	killed := chaostest.Fault(chaos.Kill, "c1", 3*chaostest.Step, 4*chaostest.Step, false)
	gone := Record{Puts: []Event{ev("p1", "p1-1", 1)}, Takes: []Event{ev("c1", "p1-1", 2)}}
	if f := findings(gone, killed)[Lost]; len(f) != 0 {
		t.Errorf("an item whose taker was killed: %v", f)
	}
	if f := findings(gone)[Lost]; len(f) != 1 {
		t.Errorf("without the kill the item is lost: found %v", f)
	}
	warm := func(r Record) Record { // c2's first item, done at step 20: its next Take began then
		r.Puts = append([]Event{on(ev("p3", "p3-1", 0), 0)}, r.Puts...)
		r.Takes = append([]Event{on(ev("c2", "p3-1", 3), 0)}, r.Takes...)
		r.Acks = append([]Event{ev("c2", "p3-1", 20)}, r.Acks...)
		return r
	}
	order := warm(Record{Puts: []Event{on(ev("p1", "p1-1", 1), 1), on(ev("p1", "p1-2", 2), 2)}, Takes: []Event{on(ev("c2", "p1-2", 22), 2), on(ev("c2", "p1-1", 30), 1)},
		Acks: []Event{ev("c2", "p1-2", 23), ev("c2", "p1-1", 31)}})
	if f := findings(order, killed)[OutOfOrder]; len(f) != 0 {
		t.Errorf("out of order behind a killed consumer's claim: %v", f)
	}
	if f := findings(order)[OutOfOrder]; len(f) != 1 {
		t.Errorf("without the kill it is out of order: found %v", f)
	}
	// c1 held p1-1 until its claim was lost at step 21: c2 took p1-2
	// before it, and then p1-1 came back.
	redelivered := warm(Record{Puts: []Event{on(ev("p1", "p1-1", 1), 1), on(ev("p1", "p1-2", 2), 2)},
		Takes: []Event{on(ev("c1", "p1-1", 4), 1), on(ev("c2", "p1-2", 22), 2), on(ev("c2", "p1-1", 30), 1)},
		Acks:  []Event{ev("c2", "p1-2", 23), ev("c2", "p1-1", 31)}, Lost: []Event{ev("c1", "p1-1", 21)}})
	if f := findings(redelivered)[OutOfOrder]; len(f) != 0 {
		t.Errorf("a redelivered item behind a later one: %v", f)
	}
}
