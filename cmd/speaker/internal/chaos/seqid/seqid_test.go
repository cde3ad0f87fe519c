package seqid

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
	"zkspeaker/speaker"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// A seeded soak of the sequence-ID service, with total losses of
// ZooKeeper's data and restores among the faults: no ID twice, every ID
// after a restore above every ID before, workers served again within the
// bound, nothing left in ZooKeeper.
func TestSeqidSoak(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Recipe: Name, Seed: 3, Duration: 12 * time.Second, Speakers: 2, Servers: 1, Speaker: chaostest.Build(t, nil, "seqid")}
	chaostest.MustPass(t, cfg, func(rep chaos.Report) string {
		switch {
		case rep.Kinds[chaos.DataLoss].N == 0:
			return fmt.Sprintf("seed %d drew no data loss in %v: the restore went untested", cfg.Seed, cfg.Duration)
		case rep.Lines < 100:
			return fmt.Sprintf("%d IDs handed out, want at least 100: the workers hardly worked", rep.Lines)
		}
		return ""
	})
}

// The sequence checker catches a seqid built broken, whose
// workers write without the compare-and-set: two workers that read the
// same next ID both take it.
func TestSeqidSoakCatchesABrokenSequence(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, SeqidMode: "cas", Seed: 3, Duration: 8 * time.Second, Speakers: 3, Servers: 1, Kinds: []chaos.Kind{chaos.Reset},
		Speaker: chaostest.Build(t, sabotage.Sequence, "seqid")}, "duplicate IDs", func(rep chaos.Report) int { return len(rep.Found("duplicate IDs")) })
}

// The checker catches a counter sequence built broken, whose workers hand
// out versions at or past the limit: no ID twice (the next raise stores a
// reservation above them), but IDs not below any reservation stored
// before them.
func TestSeqidSoakCatchesABrokenCounter(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, SeqidMode: "counter", Seed: 3, Duration: 8 * time.Second, Speakers: 3, Servers: 1, Kinds: []chaos.Kind{chaos.Reset},
		Speaker: chaostest.Build(t, sabotage.Counter, "seqid")}, "IDs not below a stored reservation",
		func(rep chaos.Report) int { return len(rep.Found("IDs not below a stored reservation")) })
}

// idLines builds ID lines: each "name:id" at its offset into the soak.
func idLines(ids ...string) []byte {
	var b []byte
	for i, s := range ids {
		name, id, _ := strings.Cut(s, ":")
		l := speaker.Line{Time: chaostest.TS(time.Duration(i) * chaostest.Step), Name: name, Counter: 1, Extra: []string{"id=" + id}}
		b = l.Append(b)
	}
	return b
}

// An ID handed out twice is found, with both holders named; a restore
// after which an ID at or below one from before the loss comes is found.
func TestIDChecks(t *testing.T) {
	out := idLines("w1:1", "w2:2", "w1:3", "w3:2", "w2:1001", "w1:3", "w2:1002")
	lossEnd := chaostest.TS(3*chaostest.Step + chaostest.Step/2) // lines 1-4 before, 5-7 after
	r, err := chaos.Check(chaos.Input{Out: out, Recipe: Name, Start: chaostest.TS(0), End: chaostest.TS(10 * chaostest.Step), Session: time.Second,
		Faults: []chaos.Fault{{Kind: chaos.DataLoss, Target: "zk1+zk2+zk3", Start: chaostest.TS(3 * chaostest.Step), End: lossEnd}}})
	if err != nil {
		t.Fatal(err)
	}
	dups, below := r.Found("duplicate IDs"), r.Found("IDs below a restore")
	if len(dups) != 2 || dups[0].Line != 4 || dups[1].Line != 6 {
		t.Fatalf("duplicates %+v, want lines 4 (ID 2) and 6 (ID 3)", dups)
	}
	if len(below) != 1 || below[0].Line != 6 {
		t.Errorf("below restore %+v, want line 6 (ID 3 after the restore, below 3)", below)
	}
	if !strings.Contains(dups[0].Detail, "ID 2 to w3, handed out already to w2 on line "+strconv.Itoa(2)) {
		t.Errorf("detail %q", dups[0].Detail)
	}
	if r.Pass() || len(r.Overlaps) != 0 {
		t.Errorf("pass %v, overlaps %d: want a failure and no overlaps looked for", r.Pass(), len(r.Overlaps))
	}
}

// A sequence soak is reported in its words: its workers and its
// persisters' leader; never a speaker's handovers or terms.
func TestReportSpeaksTheRecipesWords(t *testing.T) {
	// w1 takes IDs 1 to 10 until 0.9 s, the persistence leader p1
	// is killed at 1 s, and w2 takes 11 to 20 from 1.2 s.
	o := &chaostest.OutFile{}
	for i := range 20 {
		at, name := time.Duration(i)*chaostest.Step, "w1"
		if i >= 10 {
			at, name = 1200*time.Millisecond+time.Duration(i-10)*chaostest.Step, "w2"
		}
		o.Entries = append(o.Entries, chaostest.Entry{T: chaostest.TS(at), Line: speaker.Line{Time: chaostest.TS(at), Name: name, Counter: uint64(i%10 + 1), Extra: []string{"id=" + strconv.Itoa(i+1)}}})
	}
	in := chaostest.Input(o, 3*time.Second, chaostest.Fault(chaos.Kill, "p1", time.Second, time.Second, true))
	in.Fence = false
	in.Recipe = Name
	chaostest.SpeaksItsWords(t, in,
		[]string{"IDs handed out 20, by workers 2 (w1, w2)\n", "hit the leader of the persisters"},
		[]string{"kill 1 1 200ms 200ms 200ms 0"},
		[]string{"terms", "speaker", "writers", "handover", "epoch"})
}

// An ID at or past the highest reservation stored before it was printed is
// found; one below it is not; a log line of a store is read with its time
// and reservation.
func TestUnreservedIDs(t *testing.T) {
	r, ok := parseStored(`time=2026-11-26T18:36:39.123Z level=DEBUG msg="stored a reservation; now raising the limit" sequence=chaos stored=2001`)
	if !ok || r.Stored != 2001 || r.At.Nanosecond() != 123_000_000 {
		t.Fatalf("parsed %+v, %v", r, ok)
	}
	rs := []Reservation{{At: chaostest.TS(chaostest.Step / 2), Stored: 3}, {At: chaostest.TS(2*chaostest.Step + chaostest.Step/2), Stored: 10}}
	// Lines at 0, 1, 2, 3 steps: w1:1 before any store, w1:2 below 3, w2:3 at 3, w2:4 below 10.
	out := idLines("w1:1", "w1:2", "w2:3", "w2:4")
	check := func(rec any) []chaos.Finding {
		r, err := chaos.Check(chaos.Input{Out: out, Recipe: Name, Start: chaostest.TS(0), End: chaostest.TS(10 * chaostest.Step), Session: time.Second, Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		return r.Found("IDs not below a stored reservation")
	}
	found := check(rs)
	if len(found) != 2 || found[0].Line != 1 || found[1].Line != 3 {
		t.Fatalf("found %+v, want lines 1 (no reservation yet) and 3 (ID 3 at the reservation 3)", found)
	}
	if !strings.Contains(found[1].Detail, "ID 3 to w2, not below a stored reservation: the highest reservation stored before it was 3") {
		t.Errorf("detail %q", found[1].Detail)
	}
	if check(nil) != nil {
		t.Error("with no record, IDs were found unreserved")
	}
}

// The soak's header, which titles its summary and picture, names the
// sequence's mode: counter when none is given.
func TestHeaderNamesTheMode(t *testing.T) {
	for given, want := range map[string]string{"": "chaos: seqid (counter mode), seed 5", "cas": "chaos: seqid (cas mode), seed 5"} {
		cfg := chaos.Config{Recipe: Name, SeqidMode: given, Seed: 5, Duration: time.Minute, Speakers: 2, Servers: 1}
		if got := cfg.String(); !strings.HasPrefix(got, want) {
			t.Errorf("--seqid-mode %q: the header is %q, want it to start %q", given, got, want)
		}
	}
}
