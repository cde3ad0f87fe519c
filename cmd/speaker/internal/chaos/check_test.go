package chaos_test

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// A clean chain of handovers: s1 is killed as leader and s2 takes over
// 2.3 s later; s2 gets SIGTERM as leader and s3 takes over in 450 ms; a
// stop of a follower and a hole on the leader just before the end, after
// which nobody writes again before End.
func TestCleanHandoversPass(t *testing.T) {
	o := (&chaostest.OutFile{}).
		Speak("s1", 1, 10, 0, 50).                     // 0 to 4.9 s
		Speak("s2", 1, 20, 7300*time.Millisecond, 48). // 7.3 to 12 s
		Speak("s3", 1, 30, 12500*time.Millisecond, 75) // 12.5 to 19.9 s
	in := chaostest.Input(o, 20*time.Second,
		chaostest.Fault(chaos.Kill, "s1", 5*time.Second, 6*time.Second, true),
		chaostest.Fault(chaos.Term, "s2", 12050*time.Millisecond, 13*time.Second, true),
		chaostest.Fault(chaos.StopShort, "s1", 14*time.Second, 15*time.Second, false),
		chaostest.Fault(chaos.HoleShort, "s3", 19950*time.Millisecond, 19990*time.Millisecond, true))
	in.Exits = []chaos.Exit{{Name: "s2", Took: 50 * time.Millisecond}, {Name: "s1", Took: 20 * time.Millisecond}, {Name: "s2", Took: 5 * time.Second}, {Name: "s3", Took: time.Millisecond}}
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r)
	if r.Lines != 173 || !slices.Equal(r.Writers, []string{"s1", "s2", "s3"}) || r.Terms != 3 {
		t.Errorf("lines %d, writers %v, terms %d; want 173, [s1 s2 s3], 3", r.Lines, r.Writers, r.Terms)
	}
	if len(r.Kinds) != len(chaos.Kinds()) {
		t.Fatalf("%d kinds in the report, want %d", len(r.Kinds), len(chaos.Kinds()))
	}
	want := map[chaos.Kind]chaos.KindStats{
		chaos.Kill:      {chaos.Kill, 1, chaos.Handover{On: 1, N: 1, Min: 2300 * time.Millisecond, Median: 2300 * time.Millisecond, Max: 2300 * time.Millisecond}},
		chaos.Term:      {chaos.Term, 1, chaos.Handover{On: 1, N: 1, Min: 450 * time.Millisecond, Median: 450 * time.Millisecond, Max: 450 * time.Millisecond}},
		chaos.StopShort: {chaos.StopShort, 1, chaos.Handover{}},
		chaos.HoleShort: {chaos.HoleShort, 1, chaos.Handover{On: 1, NoLine: 1}},
	}
	for i, k := range chaos.Kinds() {
		if w := want[k]; r.Kinds[i] != (chaos.KindStats{k, w.N, w.Handover}) {
			t.Errorf("kind %s: %+v, want %+v", k, r.Kinds[i], w)
		}
	}

	text := chaostest.Written(r)
	for _, row := range []string{"kill 1 1 2.3s 2.3s 2.3s 0", "term 1 1 450ms 450ms 450ms 0", "stop-short 1 0 - - - 0",
		"hole-short 1 0 - - - 1", "storm 0 0 - - - 0"} {
		if !chaostest.HasRow(text, row) {
			t.Errorf("no row %q in\n%s", row, text)
		}
	}
	if !strings.HasSuffix(text, "\nPASS\n") || !strings.Contains(text, "lines 173, writers 3 (s1, s2, s3), terms 3\n") {
		t.Errorf("report:\n%s", text)
	}
}

func TestHandoverLowerMedian(t *testing.T) {
	got := chaos.SumUp([]time.Duration{3, 1, 4, 2}, 5)
	if want := (chaos.Handover{N: 4, Min: 1, Median: 2, Max: 4, NoLine: 5}); got != want {
		t.Errorf("sumUp = %+v, want %+v", got, want)
	}
}

func TestTornLine(t *testing.T) {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10).Tear(550*time.Millisecond, "2026-03-01T12:00:0")
	r := chaostest.Check(t, chaostest.Input(o, time.Second))
	chaostest.Failures(t, r, "torn lines")
	if want := []chaos.Finding{{Line: 7, Detail: `"2026-03-01T12:00:0"`}}; !reflect.DeepEqual(r.TornLines, want) {
		t.Errorf("torn lines = %+v, want %+v", r.TornLines, want)
	}
	if r.Lines != 10 || r.CounterJumps != nil {
		t.Errorf("lines %d, jumps %+v", r.Lines, r.CounterJumps)
	}
	if text := chaostest.Written(r); !strings.Contains(text, "torn lines: 1\n  line 7: \"2026-03-01T12:00:0\"\n") || !strings.HasSuffix(text, "\nFAIL: torn lines\n") {
		t.Errorf("report:\n%s", text)
	}
}

func TestCounterJump(t *testing.T) {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 5).Speak("s1", 7, 10, 500*time.Millisecond, 5)
	r := chaostest.Check(t, chaostest.Input(o, time.Second))
	chaostest.Failures(t, r, "counter jumps")
	if want := []chaos.Finding{{Line: 6, Time: chaostest.TS(500 * time.Millisecond), Detail: "s1 wrote 7 after 5"}}; !reflect.DeepEqual(r.CounterJumps, want) {
		t.Errorf("counter jumps = %+v, want %+v", r.CounterJumps, want)
	}
	if text := chaostest.Written(r); !strings.Contains(text, "  line 6 at 12:00:00.500: s1 wrote 7 after 5\n") {
		t.Errorf("report:\n%s", text)
	}
}

// s1 leads with epoch 10, s2 with 20, and then s1 writes one more line
// with its old epoch: a stale leader's write that the fence should have
// refused.
func TestEpochDrop(t *testing.T) {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10).Speak("s2", 1, 20, time.Second, 10).Speak("s1", 11, 10, 1950*time.Millisecond, 1)
	in := chaostest.Input(o, 2*time.Second)
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r, "epoch drops")
	want := []chaos.Finding{{Line: 21, Time: chaostest.TS(1950 * time.Millisecond), Detail: "s1 wrote epoch=10 after s2 wrote epoch=20 at line 11"}}
	if !reflect.DeepEqual(r.EpochDrops, want) {
		t.Errorf("epoch drops = %+v, want %+v", r.EpochDrops, want)
	}

	in.Fence = false
	r = chaostest.Check(t, in)
	chaostest.Failures(t, r)
	if r.EpochDrops != nil {
		t.Errorf("epoch drops without --fence: %+v", r.EpochDrops)
	}
	if text := chaostest.Written(r); !strings.Contains(text, "epoch drops: not checked (no --fence)\n") {
		t.Errorf("report:\n%s", text)
	}
}

func TestLeakFails(t *testing.T) {
	in := chaostest.Input((&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10), time.Second)
	in.Leftover = []string{"/speaker/_c_4f1e-n_0000000007"}
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r, "leaks")
	if !slices.Equal(r.Leaks, in.Leftover) {
		t.Errorf("leaks = %q", r.Leaks)
	}
	if text := chaostest.Written(r); !strings.Contains(text, "leaks: 1\n  /speaker/_c_4f1e-n_0000000007 is still in ZooKeeper") {
		t.Errorf("report:\n%s", text)
	}
}

func TestBadExitFails(t *testing.T) {
	in := chaostest.Input((&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10), time.Second)
	in.Exits = []chaos.Exit{{Name: "s1", Took: chaos.ExitLimit}, {Name: "s2", Took: chaos.ExitLimit + time.Nanosecond}, {Name: "s3", Status: 1, Took: 10 * time.Millisecond},
		{Name: "s4", Killed: true, Took: chaos.ExitLimit}, {Name: "s5", Status: -1, Signal: syscall.SIGTERM, Took: 5 * time.Millisecond}}
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r, "bad exits")
	if want := in.Exits[1:]; !slices.Equal(r.BadExits, want) {
		t.Errorf("bad exits = %+v, want %+v", r.BadExits, want)
	}
	text := chaostest.Written(r)
	for _, l := range []string{"  s3 exited with status 1 after 10ms (want a graceful exit within 5s)\n", "  s4 did not exit within 5s and was killed\n",
		"  s5 was ended by signal 15 (terminated) after 5ms, without exiting on its own (no handler for it yet?)\n", "FAIL: bad exits\n"} {
		if !strings.Contains(text, l) {
			t.Errorf("no %q in report:\n%s", l, text)
		}
	}
}

// An out file the timeline cannot read at all is an error, not a report.
func TestUnreadableOut(t *testing.T) {
	_, err := chaos.Check(chaos.Input{Out: []byte(strings.Repeat("x", 2<<20))})
	if !errors.Is(err, bufio.ErrTooLong) || !strings.HasPrefix(err.Error(), "chaos: ") {
		t.Errorf("err = %v, want a chaos: error wrapping bufio.ErrTooLong", err)
	}
}

// TestMain fails the package when its tests leave a goroutine running, and
// removes the commands its tests built.
func TestMain(m *testing.M) { chaostest.Main(m) }

// A process that writes no line (the group's watcher, a config updater)
// still gets a lane when a fault hits it: its faults drawn on the
// ZooKeeper lane would read as the servers' faults.
func TestPictureGivesEveryFaultedProcessALane(t *testing.T) {
	in := chaostest.Input((&chaostest.OutFile{}).Speak("m1", 1, 0, 0, 10), 10*chaostest.Step,
		chaostest.Fault(chaos.HoleLong, "watcher", chaostest.Step, 5*chaostest.Step, false),
		chaostest.Fault(chaos.ServerKill, "zk2", 2*chaostest.Step, 3*chaostest.Step, false))
	var b bytes.Buffer
	chaos.WritePicture(&b, "title", in, chaos.Report{})
	svg := b.String()
	for _, lane := range []string{">m1<", ">watcher<", ">zookeeper<"} {
		if !strings.Contains(svg, lane) {
			t.Errorf("no lane %s in the picture", lane)
		}
	}
}
