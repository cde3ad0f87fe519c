package chaos_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/speaker"
)

// pausedLeader is an at-most-one soak in which s1 (epoch 10) leads until
// 2 s, s2 (epoch 20) leads from 6.5 s, and s1 writes two stale lines at
// 7.02 s and 7.12 s: what a leader frozen past its session does when it
// continues, as the fence would have refused.
func pausedLeader(faults ...chaos.Fault) chaos.Input {
	o := (&chaostest.OutFile{}).
		Speak("s1", 1, 10, 0, 21).
		Speak("s2", 1, 20, 6500*time.Millisecond, 36). // to 10 s
		Speak("s1", 22, 10, 7020*time.Millisecond, 2)
	in := chaostest.Input(o, 10050*time.Millisecond, faults...)
	in.Fence = false
	return in
}

// theOverlap is the one overlap in pausedLeader.
var theOverlap = speaker.Overlap{A: "s2", B: "s1", From: chaostest.TS(7020 * time.Millisecond), To: chaostest.TS(7120 * time.Millisecond)}

func TestOverlapPausedPastConfirm(t *testing.T) {
	stop := chaostest.Fault(chaos.StopLong, "s1", 2050*time.Millisecond, 7*time.Second, true)
	r := chaostest.Check(t, pausedLeader(stop))
	chaostest.Failures(t, r)
	want := []chaos.Overlap{{Overlap: theOverlap, Window: chaos.PausedPastConfirm, Faults: []chaos.Fault{stop}}}
	if !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}
	text := chaostest.Written(r)
	line := "  explained: s2 and s1 both wrote from 12:00:07.020 to 12:00:07.120: frozen past its session or confirm (SIGSTOP; at-least-one, or no --fence), by stop-long s1 12:00:02.050-12:00:07.000 (leader)\n"
	if !strings.Contains(text, "overlaps: 1 explained, 0 unexplained\n"+line) || !strings.HasSuffix(text, "\nPASS\n") {
		t.Errorf("no %q in report:\n%s", line, text)
	}
}

// With the fence on, the stale lines must have been refused: the overlap
// is unexplained, and each stale line is an epoch drop.
func TestOverlapPausedWithFence(t *testing.T) {
	in := pausedLeader(chaostest.Fault(chaos.StopLong, "s1", 2050*time.Millisecond, 7*time.Second, true))
	in.Fence = true
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r, "epoch drops", "unexplained overlaps")
	if want := []chaos.Overlap{{Overlap: theOverlap}}; !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}
	wantDrops := []chaos.Finding{
		{Line: 28, Time: chaostest.TS(7020 * time.Millisecond), Detail: "s1 wrote epoch=10 after s2 wrote epoch=20 at line 22"},
		{Line: 30, Time: chaostest.TS(7120 * time.Millisecond), Detail: "s1 wrote epoch=10 after s2 wrote epoch=20 at line 22"},
	}
	if !reflect.DeepEqual(r.EpochDrops, wantDrops) {
		t.Errorf("epoch drops = %+v, want %+v", r.EpochDrops, wantDrops)
	}
	text := chaostest.Written(r)
	for _, l := range []string{"overlaps: 0 explained, 1 unexplained\n", "  UNEXPLAINED: s2 and s1 both wrote from 12:00:07.020 to 12:00:07.120\n",
		"FAIL: epoch drops, unexplained overlaps\n"} {
		if !strings.Contains(text, l) {
			t.Errorf("no %q in report:\n%s", l, text)
		}
	}
}

// Which faults open the SIGSTOP window, under at-most-one without the fence
// and under at-least-one: a stop of one of the two writers that ended no
// earlier than two intervals, a second and the slack before the overlap
// began, and no later than it ended.
func TestOverlapPausedWindow(t *testing.T) {
	edge := 7020*time.Millisecond - 2*chaostest.Step - time.Second // 5.82 s
	for _, c := range []struct {
		name   string
		f      chaos.Fault
		slack  time.Duration
		policy string
		ok     bool
	}{
		{"no stop: a hole", chaostest.Fault(chaos.HoleLong, "s1", 2050*time.Millisecond, 7*time.Second, true), 0, "at-most-one", false},
		{"stop of another speaker", chaostest.Fault(chaos.StopLong, "s3", 2050*time.Millisecond, 7*time.Second, false), 0, "at-most-one", false},
		{"short stop of the new leader", chaostest.Fault(chaos.StopShort, "s2", 6600*time.Millisecond, 6700*time.Millisecond, true), 0, "at-most-one", true},
		{"ended at the window's start", chaostest.Fault(chaos.StopLong, "s1", 0, edge, true), 0, "at-most-one", true},
		{"ended just before it", chaostest.Fault(chaos.StopLong, "s1", 0, edge-1, true), 0, "at-most-one", false},
		{"just before it, with slack", chaostest.Fault(chaos.StopLong, "s1", 0, edge-1, true), 1, "at-most-one", true},
		{"ended as the overlap ended", chaostest.Fault(chaos.StopLong, "s1", 0, 7120*time.Millisecond, true), 0, "at-most-one", true},
		{"ended after it", chaostest.Fault(chaos.StopLong, "s1", 0, 7120*time.Millisecond+1, true), 0, "at-most-one", false},
		// The runner notes a stop's end just before its SIGCONT; the slack
		// covers the moment between, in which the speaker may write.
		{"just after it, with slack", chaostest.Fault(chaos.StopLong, "s1", 0, 7120*time.Millisecond+1, true), 1, "at-most-one", true},
		// Nothing confirms an at-least-one line: a freeze past the session
		// opens the window whatever the fence (README: the policies).
		{"at-least-one", chaostest.Fault(chaos.StopLong, "s1", 2050*time.Millisecond, 7*time.Second, true), 0, "at-least-one", true},
		{"at-least-one, stop of another speaker", chaostest.Fault(chaos.StopLong, "s3", 2050*time.Millisecond, 7*time.Second, false), 0, "at-least-one", false},
	} {
		in := pausedLeader(c.f)
		in.Slack, in.Policy = c.slack, c.policy
		r := chaostest.Check(t, in)
		if len(r.Overlaps) != 1 || r.Overlaps[0].Explained() != c.ok || c.ok && r.Overlaps[0].Window != chaos.PausedPastConfirm {
			t.Errorf("%s: overlaps %+v, want explained %v", c.name, r.Overlaps, c.ok)
		}
	}
}

// partitionedLeader is an at-least-one soak (no epochs) in which s1 speaks
// from 0 to 7.1 s, through a partition, and s2, elected meanwhile, from
// 6.5 s to 10 s.
func partitionedLeader(faults ...chaos.Fault) chaos.Input {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 0, 0, 72).Speak("s2", 1, 0, 6500*time.Millisecond, 36)
	in := chaostest.Input(o, 10050*time.Millisecond, faults...)
	in.Fence, in.Policy = false, "at-least-one"
	return in
}

func TestOverlapPartitioned(t *testing.T) {
	hole := chaostest.Fault(chaos.HoleLong, "s1", 2050*time.Millisecond, 7*time.Second, true)
	r := chaostest.Check(t, partitionedLeader(hole))
	chaostest.Failures(t, r)
	o := speaker.Overlap{A: "s1", B: "s2", From: chaostest.TS(6500 * time.Millisecond), To: chaostest.TS(7100 * time.Millisecond)}
	if want := []chaos.Overlap{{Overlap: o, Window: chaos.Partitioned, Faults: []chaos.Fault{hole}}}; !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}

	r = chaostest.Check(t, partitionedLeader())
	chaostest.Failures(t, r, "unexplained overlaps")
	if want := []chaos.Overlap{{Overlap: o}}; !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}
}

// Which faults open the partition window: a network fault of one of the
// two writers, or any server fault, from its start to a session (and the
// slack) after its end, reaching into the overlap (6.5 s to 7.1 s).
func TestOverlapPartitionedWindow(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     chaos.Fault
		slack time.Duration
		ok    bool
	}{
		{"reset of s2", chaostest.Fault(chaos.Reset, "s2", 3*time.Second, 3*time.Second, false), 0, true},
		{"storm of s1", chaostest.Fault(chaos.Storm, "s1", 7*time.Second, 7100*time.Millisecond, true), 0, true},
		{"hole of another speaker", chaostest.Fault(chaos.HoleLong, "s3", 2050*time.Millisecond, 7*time.Second, false), 0, false},
		{"hole healed a session before", chaostest.Fault(chaos.HoleShort, "s1", time.Second, 2500*time.Millisecond, true), 0, true},
		{"hole healed just earlier", chaostest.Fault(chaos.HoleShort, "s1", time.Second, 2500*time.Millisecond-1, true), 0, false},
		{"just earlier, with slack", chaostest.Fault(chaos.HoleShort, "s1", time.Second, 2500*time.Millisecond-1, true), 1, true},
		{"hole begun as it ended", chaostest.Fault(chaos.HoleShort, "s1", 7100*time.Millisecond, 8*time.Second, true), 0, true},
		{"hole begun after it", chaostest.Fault(chaos.HoleShort, "s1", 7100*time.Millisecond+1, 8*time.Second, true), 0, false},
		{"any server killed", chaostest.Fault(chaos.ServerKill, "zk2", 3*time.Second, 3500*time.Millisecond, false), 0, true},
		{"quorum lost", chaostest.Fault(chaos.QuorumLoss, "zk1", 5*time.Second, 5100*time.Millisecond, false), 0, true},
		{"server killed too early", chaostest.Fault(chaos.ServerKill, "zk2", 0, 2*time.Second, false), 0, false},
		{"a kill is no partition", chaostest.Fault(chaos.Kill, "s1", 6*time.Second, 7*time.Second, true), 0, false},
		{"a delete is no partition", chaostest.Fault(chaos.DeleteLeader, "s1", 6*time.Second, 6*time.Second, true), 0, false},
	} {
		in := partitionedLeader(c.f)
		in.Slack = c.slack
		r := chaostest.Check(t, in)
		if len(r.Overlaps) != 1 || r.Overlaps[0].Explained() != c.ok || c.ok && r.Overlaps[0].Window != chaos.Partitioned {
			t.Errorf("%s: overlaps %+v, want explained %v", c.name, r.Overlaps, c.ok)
		}
	}
}
