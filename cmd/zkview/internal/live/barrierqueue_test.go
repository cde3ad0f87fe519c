package live

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recipes/queue"
)

// logged is the texts of the hub's log, oldest first.
func logged(h *Hub) []string {
	var out []string
	for _, e := range h.Board().Log {
		out = append(out, e.Text)
	}
	return out
}

// A double barrier is drawn as barrier.Inspect stood its members, and the
// log counts each entry towards N, tells the round opening, a member of
// a later round, a member leaving and the round's end.
func TestABarrierIsDrawnAndToldEntryByEntry(t *testing.T) {
	h := NewHub()
	member := func(name string, seq int64, inside bool) barrier.Member {
		c := nodemonitor.Candidate{Name: fmt.Sprintf("member-%010d", seq), Seq: seq, Kind: "member-"}
		return barrier.Member{Seat: nodemonitor.Seat{Candidate: c, Data: name}, Inside: inside}
	}
	at := func(round int64, ms ...barrier.Member) func(*parts) {
		return func(p *parts) {
			p.barrier = &barrier.View{Path: "/step", Exists: true, Count: 3, Round: round, Members: ms}
		}
	}
	t0 := time.UnixMilli(1_000_000)
	h.update(t0, "barrier", at(0))
	h.update(t0, "barrier", at(0, member("ann", 0, false), member("bob", 1, false)))
	if got := h.Board().Barrier; got.Count != 3 || len(got.Members) != 2 || got.Members[0].Role != "waiting" {
		t.Fatalf("drawn %+v; want N=3 and two waiting", got)
	}
	h.update(t0, "barrier", at(2, member("ann", 0, true), member("bob", 1, true), member("cid", 2, true)))
	h.update(t0, "barrier", at(2, member("ann", 0, true), member("bob", 1, true), member("cid", 2, true), member("dan", 3, false)))
	h.update(t0, "barrier", at(2, member("ann", 0, true), member("cid", 2, true), member("dan", 3, false)))
	h.update(t0, "barrier", at(0, member("dan", 3, false)))
	want := []string{"ann entered the barrier /step: 1 of 3 in", "bob entered the barrier /step: 2 of 3 in",
		"cid entered the barrier /step", "the barrier /step opened: 3 of 3 in at once, all go on",
		"dan entered the barrier /step: it waits for the round inside to end", "bob left the barrier /step",
		"ann left the barrier /step", "cid left the barrier /step", "the round at /step is over: every member still alive has left"}
	if got := logged(h); !slices.Equal(got, want) {
		t.Fatalf("told %q\nwant %q", got, want)
	}
}

// What was taken last is read from two looks at a queue: an item claimed
// by its consumer's session, one acknowledged by its claim's holder, one
// deleted at once by the handle whose ledger moved with it; the log tells
// each, a claim that ended before its Ack, one that passed straight to
// another consumer, and an item put and claimed between two looks.
func TestAQueuesLastTakenAndItsLog(t *testing.T) {
	entry := func(value string, seq int64, claimedBy int64) queue.Queued {
		return queue.Queued{Entry: queue.Entry{Name: fmt.Sprintf("item-999-%010d", seq), Seq: seq, Value: []byte(value), Claimed: claimedBy != 0}, ClaimedBy: claimedBy}
	}
	view := func(last string, items ...queue.Queued) queue.View {
		v := queue.View{Path: "/jobs", Exists: true, Items: items, Last: last,
			Handles: []queue.Handle{{Ledger: "p", Sessions: []int64{0xa}}, {Ledger: "c", Sessions: []int64{0xc}}}}
		for _, it := range items {
			v.Names = append(v.Names, it.Name)
		}
		return v
	}
	looks := []struct {
		v    queue.View
		want string // the last taken, as how/value/by
	}{
		{view("p", entry("x", 1, 0), entry("y", 2, 0)), ""},
		{view("p", entry("x", 1, 0xc), entry("y", 2, 0)), "claimed/x/0xc"},
		{view("c", entry("y", 2, 0)), "acknowledged/x/0xc"},
		{view("c", entry("y", 2, 0xc)), "claimed/y/0xc"},
		{view("c", entry("y", 2, 0)), "claimed/y/0xc"}, // the claim ended: nothing taken
		{view("p"), "taken/y/0xa"},
		{view("p", entry("z", 3, 0xc)), "claimed/z/0xc"}, // put and claimed between two looks
		{view("p", entry("z", 3, 0xd)), "claimed/z/0xd"}, // 0xc's session ended, 0xd took it at once
	}
	h := NewHub()
	var prev *queue.View
	var last *Taken
	for i, l := range looks {
		if got := taken(prev, l.v, 1); got != nil {
			last = got
		}
		prev = &looks[i].v
		shown := ""
		if last != nil {
			shown = last.How + "/" + last.Value + "/" + last.By
		}
		if shown != l.want {
			t.Errorf("look %d: last taken %q, want %q", i, shown, l.want)
		}
		h.update(time.Time{}, "queue", func(p *parts) { p.queue, p.queueLast = &looks[i].v, last })
	}
	want := []string{"0xc claimed x: it stays in the queue until its Ack", "0xc acknowledged x: it is gone for good",
		"0xc claimed y: it stays in the queue until its Ack", "the claim of 0xc on y ended before its Ack: it is back in /jobs", "0xa took y from /jobs",
		"z was put into /jobs (priority 0)", "0xc claimed z: it stays in the queue until its Ack",
		"the claim of 0xc on z ended before its Ack: it is back in /jobs", "0xd claimed z: it stays in the queue until its Ack"}
	if got := logged(h); !slices.Equal(got, want) {
		t.Fatalf("told %q\nwant %q", got, want)
	}
}

// A simple barrier shows the sessions the servers see watching it, and
// its removal is told with how many it let go.
func TestASimpleBarriersWaitersAndItsRemoval(t *testing.T) {
	h := NewHub()
	seen := fourletter.NewSightings(map[int64][]string{0xa: {"/start"}, 0xb: {"/start"}, 0xc: {"/other"}},
		map[int64]string{0xa: "s1", 0xb: "s1", 0xc: "s1"}, true)
	h.update(time.Time{}, "servers", func(p *parts) { p.sightings = seen })
	h.update(time.Time{}, "barrier", func(p *parts) { p.barrier = &barrier.View{Path: "/start", Exists: true} })
	var waiters []string
	for _, c := range h.Board().Barrier.Waiters {
		waiters = append(waiters, c.Name)
	}
	if !slices.Equal(waiters, []string{"0xa", "0xb"}) {
		t.Fatalf("waiters %q; want 0xa and 0xb, not 0xc", waiters)
	}
	h.update(time.Time{}, "barrier", func(p *parts) { p.barrier = &barrier.View{Path: "/start"} })
	if got, want := logged(h), []string{"the barrier /start was removed: its 2 waiters go on"}; !slices.Equal(got, want) {
		t.Fatalf("told %q; want %q", got, want)
	}
}

// A consumer that found every item claimed waits for the first claim to
// end, watching it: its card says whose claim, by the servers' wchc.
func TestAQueueHandleWaitingForAClaim(t *testing.T) {
	x := queue.Queued{Entry: queue.Entry{Name: "item-999-0000000001", Value: []byte("x"), Claimed: true}, ClaimedBy: 0xc}
	v := queue.View{Path: "/jobs", Exists: true, Items: []queue.Queued{x},
		Handles: []queue.Handle{{Ledger: "c", Sessions: []int64{0xc}}, {Ledger: "d", Sessions: []int64{0xd}}}}
	seen := fourletter.NewSightings(map[int64][]string{0xd: {"/jobs/item-999-0000000001/claim"}}, map[int64]string{0xc: "s1", 0xd: "s1"}, true)
	var got []string
	for _, h := range drawQueue(Panel{}, v, nil, seen).Handles {
		got = append(got, h.Name+"="+h.Role+">"+h.Waits)
	}
	if want := []string{"0xc=claims>", "0xd=handle>x"}; !slices.Equal(got, want) {
		t.Fatalf("handles %q; want %q", got, want)
	}
}

// Of a long queue zkview reads the first items only: one that moves into
// them as another is taken was not put, and one pushed out of them by a
// put of a higher priority was not taken.
func TestAQueuesFirstItemsMoveWithoutPutsOrTakes(t *testing.T) {
	item := func(value string, rank int, seq int64) queue.Queued {
		return queue.Queued{Entry: queue.Entry{Name: fmt.Sprintf("item-%03d-%010d", rank, seq), Priority: 999 - rank, Seq: seq, Value: []byte(value)}}
	}
	a, b, c, u := item("a", 999, 1), item("b", 999, 2), item("c", 999, 3), item("u", 990, 4)
	look := func(first []queue.Queued, all ...queue.Queued) func(*parts) {
		v := queue.View{Path: "/jobs", Exists: true, Items: first}
		for _, it := range all {
			v.Names = append(v.Names, it.Name)
		}
		return func(p *parts) { p.queue = &v }
	}
	h := NewHub()
	h.update(time.Time{}, "queue", look([]queue.Queued{a, b}, a, b, c))
	h.update(time.Time{}, "queue", look([]queue.Queued{b, c}, b, c))    // a taken; c moves up
	h.update(time.Time{}, "queue", look([]queue.Queued{u, b}, u, b, c)) // u put ahead; c pushed out
	if got, want := logged(h), []string{"a consumer took a from /jobs", "u was put into /jobs (priority 9)"}; !slices.Equal(got, want) {
		t.Fatalf("told %q; want %q", got, want)
	}
	if total := h.Board().Queue.Total; total != 3 {
		t.Errorf("total %d; want 3", total)
	}
}
