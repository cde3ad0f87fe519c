package live

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"zkspeaker/nodemonitor"
)

// board decodes a Board a page got.
func board(t *testing.T, data []byte) Board {
	t.Helper()
	var b Board
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// seats is an election of the named candidates, the first leading.
func seats(names ...string) *nodemonitor.View {
	v := &nodemonitor.View{Path: "/election", Exists: true}
	for i, n := range names {
		v.Seats = append(v.Seats, nodemonitor.Seat{Candidate: nodemonitor.Candidate{Name: n, Seq: int64(i)}, Data: n, Czxid: 100 + int64(n[0]-'a')})
	}
	return v
}

// A page that takes nothing delays neither the hub nor another page, and
// when it reads again it gets the newest Board whole, as a page that
// connects anew does.
func TestASlowPageDelaysNobodyAndGetsTheNewestBoard(t *testing.T) {
	h := NewHub()
	slow, cancelSlow := h.Subscribe()
	defer cancelSlow()
	fast, cancelFast := h.Subscribe()
	defer cancelFast()
	<-fast // the Board at subscription

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i <= 100; i++ {
			names := []string{"a", "b", "c"}[:1+i%3]
			h.update(time.Now(), "election", func(p *parts) { p.election = seats(names...) })
			b := board(t, <-fast)
			if len(b.Election.Candidates) != len(names) {
				t.Errorf("change %d: the fast page got %d candidates, want %d", i, len(b.Election.Candidates), len(names))
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the hub stalled behind a page that reads nothing")
	}
	got := board(t, <-slow)
	if want := h.Board(); got.Version != want.Version || len(got.Election.Candidates) != len(want.Election.Candidates) {
		t.Errorf("the slow page got version %d, want the newest, %d", got.Version, want.Version)
	}
	select {
	case extra := <-slow:
		t.Errorf("the slow page had a second Board queued: version %d", board(t, extra).Version)
	default:
	}
	late, cancelLate := h.Subscribe()
	defer cancelLate()
	if b := board(t, <-late); b.Version != h.Board().Version || b.Election == nil {
		t.Errorf("a page that connects now got version %d, want the whole current Board, %d", b.Version, h.Board().Version)
	}
}

// A look that finds nothing new sends no Board; a change sends one, with
// the event log saying what happened.
func TestOnlyChangesAreSentAndTold(t *testing.T) {
	h := NewHub()
	page, cancel := h.Subscribe()
	defer cancel()
	<-page
	h.update(time.Now(), "election", func(p *parts) { p.election = seats("a", "b") })
	h.update(time.Now(), "election", func(p *parts) { p.election = seats("a", "b") })
	if b := board(t, <-page); b.Version != 1 {
		t.Fatalf("version %d, want 1", b.Version)
	}
	select {
	case b := <-page:
		t.Fatalf("a look that changed nothing sent version %d", board(t, b).Version)
	default:
	}
	h.update(time.Now(), "election", func(p *parts) { p.election = seats("b") })
	b := board(t, <-page)
	var texts []string
	for _, e := range b.Log {
		texts = append(texts, e.Text)
	}
	want := []string{"a joined the sequential election /election", "b joined the sequential election /election", "a leads (epoch 0:100), as zkview found it",
		"a left the sequential election", "b leads now (epoch 0:101): took over from a in one change"}
	if len(texts) != len(want) {
		t.Fatalf("log %q, want %q", texts, want)
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Errorf("log line %d: %q, want %q", i, texts[i], want[i])
		}
	}
}

// A change of leader that zkview saw splits the out file's gap between the
// two writers where ZooKeeper told of it: idle before, the handover after.
// Told after the new leader's first line, zkview cannot time the handover.
func TestGapSplitWhereZooKeeperTold(t *testing.T) {
	for _, c := range []struct {
		name        string
		told        float64 // ms after the old leader's last line
		split, late float64
	}{
		{"told inside the gap", 900, 900, 0},
		{"told after the first line", 1020, 1000, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := NewHub()
			last := time.UnixMilli(1_000_000)
			h.update(last.Add(-time.Second), "election", func(p *parts) { p.election = seats("a", "b") })
			h.update(last.Add(time.Duration(c.told)*time.Millisecond), "election", func(p *parts) { p.election = seats("b") })
			gap := Gap{From: millis(last), To: millis(last) + 1000, Before: "a", After: "b"}
			h.update(time.Time{}, "out file", func(p *parts) { p.out = &Out{Exists: true, Gaps: []Gap{gap}} })
			got := h.Board().Out.Gaps[0]
			if got.Told != gap.From+c.split || got.Late != c.late {
				t.Errorf("gap split at %+.0f ms, late %.0f ms; want %+.0f, late %.0f", got.Told-gap.From, got.Late, c.split, c.late)
			}
		})
	}
}

// The new leader's first line can reach the out file before zkview reads
// the change of leader from ZooKeeper: the log waits a moment, and tells
// the gap once, split.
func TestTheLogTellsAGapOnceSplitWhenTheLineCameFirst(t *testing.T) {
	h := NewHub()
	last := time.UnixMilli(1_000_000)
	clock := last.Add(1000 * time.Millisecond) // the new leader's first line
	h.now = func() time.Time { return clock }
	h.update(last.Add(-time.Second), "election", func(p *parts) { p.election = seats("a", "b") })
	h.update(time.Time{}, "out file", func(p *parts) { p.out = &Out{Exists: true} }) // a's lines, before
	gap := Gap{From: millis(last), To: millis(last) + 1000, Before: "a", After: "b"}
	h.update(time.Time{}, "out file", func(p *parts) { p.out = &Out{Exists: true, Gaps: []Gap{gap}} })
	clock = clock.Add(5 * time.Millisecond)
	h.update(last.Add(990*time.Millisecond), "election", func(p *parts) { p.election = seats("b") })
	clock = clock.Add(2 * time.Second) // the next line
	h.update(time.Time{}, "out file", func(p *parts) {
		p.out = &Out{Exists: true, Gaps: []Gap{gap}, Lines: []OutLine{{Text: "next", Name: "b"}}}
	})
	var told []string
	for _, e := range h.Board().Log {
		if strings.HasPrefix(e.Text, "b writes") {
			told = append(told, e.Text)
		}
	}
	if len(told) != 1 || !strings.Contains(told[0], "handover 10 ms") {
		t.Errorf("the log tells the gap as %q, want it once, with a handover of 10 ms", told)
	}
}
