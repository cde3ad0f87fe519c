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
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 3, Duration: 8 * time.Second, Speakers: 3, Servers: 1, Kinds: []chaos.Kind{chaos.Reset},
		Speaker: chaostest.Build(t, sabotage.Sequence, "seqid")}, "duplicate IDs", func(rep chaos.Report) int { return len(rep.Found("duplicate IDs")) })
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
