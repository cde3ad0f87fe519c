package chaos

import (
	"bufio"
	"errors"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A clean chain of handovers: s1 is killed as leader and s2 takes over
// 2.3 s later; s2 gets SIGTERM as leader and s3 takes over in 450 ms; a
// stop of a follower and a hole on the leader just before the end, after
// which nobody writes again before End.
func TestCleanHandoversPass(t *testing.T) {
	o := (&outFile{}).
		speak("s1", 1, 10, 0, 50).                     // 0 to 4.9 s
		speak("s2", 1, 20, 7300*time.Millisecond, 48). // 7.3 to 12 s
		speak("s3", 1, 30, 12500*time.Millisecond, 75) // 12.5 to 19.9 s
	in := input(o, 20*time.Second,
		fault(Kill, "s1", 5*time.Second, 6*time.Second, true),
		fault(Term, "s2", 12050*time.Millisecond, 13*time.Second, true),
		fault(StopShort, "s1", 14*time.Second, 15*time.Second, false),
		fault(HoleShort, "s3", 19950*time.Millisecond, 19990*time.Millisecond, true))
	in.Exits = []Exit{{Name: "s2", Took: 50 * time.Millisecond}, {Name: "s1", Took: 20 * time.Millisecond}, {Name: "s2", Took: 5 * time.Second}, {Name: "s3", Took: time.Millisecond}}
	r := check(t, in)
	failures(t, r)
	if r.Lines != 173 || !slices.Equal(r.Writers, []string{"s1", "s2", "s3"}) || r.Terms != 3 {
		t.Errorf("lines %d, writers %v, terms %d; want 173, [s1 s2 s3], 3", r.Lines, r.Writers, r.Terms)
	}
	if len(r.Kinds) != len(Kinds()) {
		t.Fatalf("%d kinds in the report, want %d", len(r.Kinds), len(Kinds()))
	}
	want := map[Kind]KindStats{
		Kill:      {Kill, 1, Handover{On: 1, N: 1, Min: 2300 * time.Millisecond, Median: 2300 * time.Millisecond, Max: 2300 * time.Millisecond}},
		Term:      {Term, 1, Handover{On: 1, N: 1, Min: 450 * time.Millisecond, Median: 450 * time.Millisecond, Max: 450 * time.Millisecond}},
		StopShort: {StopShort, 1, Handover{}},
		HoleShort: {HoleShort, 1, Handover{On: 1, NoLine: 1}},
	}
	for i, k := range Kinds() {
		if w := want[k]; r.Kinds[i] != (KindStats{k, w.N, w.Handover}) {
			t.Errorf("kind %s: %+v, want %+v", k, r.Kinds[i], w)
		}
	}

	text := written(r)
	for _, row := range []string{"kill 1 1 2.3s 2.3s 2.3s 0", "term 1 1 450ms 450ms 450ms 0", "stop-short 1 0 - - - 0",
		"hole-short 1 0 - - - 1", "storm 0 0 - - - 0"} {
		if !hasRow(text, row) {
			t.Errorf("no row %q in\n%s", row, text)
		}
	}
	if !strings.HasSuffix(text, "\nPASS\n") || !strings.Contains(text, "lines 173, writers 3 (s1, s2, s3), terms 3\n") {
		t.Errorf("report:\n%s", text)
	}
}

func TestHandoverLowerMedian(t *testing.T) {
	got := sumUp([]time.Duration{3, 1, 4, 2}, 5)
	if want := (Handover{N: 4, Min: 1, Median: 2, Max: 4, NoLine: 5}); got != want {
		t.Errorf("sumUp = %+v, want %+v", got, want)
	}
}

func TestTornLine(t *testing.T) {
	o := (&outFile{}).speak("s1", 1, 10, 0, 10).tear(550*time.Millisecond, "2026-03-01T12:00:0")
	r := check(t, input(o, time.Second))
	failures(t, r, "torn lines")
	if want := []Finding{{Line: 7, Detail: `"2026-03-01T12:00:0"`}}; !reflect.DeepEqual(r.TornLines, want) {
		t.Errorf("torn lines = %+v, want %+v", r.TornLines, want)
	}
	if r.Lines != 10 || r.CounterJumps != nil {
		t.Errorf("lines %d, jumps %+v", r.Lines, r.CounterJumps)
	}
	if text := written(r); !strings.Contains(text, "torn lines: 1\n  line 7: \"2026-03-01T12:00:0\"\n") || !strings.HasSuffix(text, "\nFAIL: torn lines\n") {
		t.Errorf("report:\n%s", text)
	}
}

func TestCounterJump(t *testing.T) {
	o := (&outFile{}).speak("s1", 1, 10, 0, 5).speak("s1", 7, 10, 500*time.Millisecond, 5)
	r := check(t, input(o, time.Second))
	failures(t, r, "counter jumps")
	if want := []Finding{{Line: 6, Time: ts(500 * time.Millisecond), Detail: "s1 wrote 7 after 5"}}; !reflect.DeepEqual(r.CounterJumps, want) {
		t.Errorf("counter jumps = %+v, want %+v", r.CounterJumps, want)
	}
	if text := written(r); !strings.Contains(text, "  line 6 at 12:00:00.500: s1 wrote 7 after 5\n") {
		t.Errorf("report:\n%s", text)
	}
}

// s1 leads with epoch 10, s2 with 20, and then s1 writes one more line
// with its old epoch: a stale leader's write that the fence should have
// refused.
func TestEpochDrop(t *testing.T) {
	o := (&outFile{}).speak("s1", 1, 10, 0, 10).speak("s2", 1, 20, time.Second, 10).speak("s1", 11, 10, 1950*time.Millisecond, 1)
	in := input(o, 2*time.Second)
	r := check(t, in)
	failures(t, r, "epoch drops")
	want := []Finding{{Line: 21, Time: ts(1950 * time.Millisecond), Detail: "s1 wrote epoch=10 after s2 wrote epoch=20 at line 11"}}
	if !reflect.DeepEqual(r.EpochDrops, want) {
		t.Errorf("epoch drops = %+v, want %+v", r.EpochDrops, want)
	}

	in.Fence = false
	r = check(t, in)
	failures(t, r)
	if r.EpochDrops != nil {
		t.Errorf("epoch drops without --fence: %+v", r.EpochDrops)
	}
	if text := written(r); !strings.Contains(text, "epoch drops: not checked (no --fence)\n") {
		t.Errorf("report:\n%s", text)
	}
}

func TestLeakFails(t *testing.T) {
	in := input((&outFile{}).speak("s1", 1, 10, 0, 10), time.Second)
	in.Leftover = []string{"/speaker/_c_4f1e-n_0000000007"}
	r := check(t, in)
	failures(t, r, "leaks")
	if !slices.Equal(r.Leaks, in.Leftover) {
		t.Errorf("leaks = %q", r.Leaks)
	}
	if text := written(r); !strings.Contains(text, "leaks: 1\n  /speaker/_c_4f1e-n_0000000007 is still in ZooKeeper") {
		t.Errorf("report:\n%s", text)
	}
}

func TestBadExitFails(t *testing.T) {
	in := input((&outFile{}).speak("s1", 1, 10, 0, 10), time.Second)
	in.Exits = []Exit{{Name: "s1", Took: ExitLimit}, {Name: "s2", Took: ExitLimit + time.Nanosecond}, {Name: "s3", Status: 1, Took: 10 * time.Millisecond},
		{Name: "s4", Killed: true, Took: ExitLimit}, {Name: "s5", Status: -1, Signal: syscall.SIGTERM, Took: 5 * time.Millisecond}}
	r := check(t, in)
	failures(t, r, "bad exits")
	if want := in.Exits[1:]; !slices.Equal(r.BadExits, want) {
		t.Errorf("bad exits = %+v, want %+v", r.BadExits, want)
	}
	text := written(r)
	for _, l := range []string{"  s3 exited with status 1 after 10ms (want a graceful exit within 5s)\n", "  s4 did not exit within 5s and was killed\n",
		"  s5 was ended by signal 15 (terminated) after 5ms, without exiting on its own (no handler for it yet?)\n", "FAIL: bad exits\n"} {
		if !strings.Contains(text, l) {
			t.Errorf("no %q in report:\n%s", l, text)
		}
	}
}

// An out file the timeline cannot read at all is an error, not a report.
func TestUnreadableOut(t *testing.T) {
	_, err := Check(Input{Out: []byte(strings.Repeat("x", 2<<20))})
	if !errors.Is(err, bufio.ErrTooLong) || !strings.HasPrefix(err.Error(), "chaos: ") {
		t.Errorf("err = %v, want a chaos: error wrapping bufio.ErrTooLong", err)
	}
}
