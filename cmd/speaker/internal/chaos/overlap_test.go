package chaos

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// pausedLeader is an at-most-one soak in which s1 (epoch 10) leads until
// 2 s, s2 (epoch 20) leads from 6.5 s, and s1 writes two stale lines at
// 7.02 s and 7.12 s: what a leader frozen past its session does when it
// continues, as the fence would have refused.
func pausedLeader(faults ...Fault) Input {
	o := (&outFile{}).
		speak("s1", 1, 10, 0, 21).
		speak("s2", 1, 20, 6500*time.Millisecond, 36). // to 10 s
		speak("s1", 22, 10, 7020*time.Millisecond, 2)
	in := input(o, 10050*time.Millisecond, faults...)
	in.Fence = false
	return in
}

// theOverlap is the one overlap in pausedLeader.
var theOverlap = speaker.Overlap{A: "s2", B: "s1", From: ts(7020 * time.Millisecond), To: ts(7120 * time.Millisecond)}

func TestOverlapPausedPastConfirm(t *testing.T) {
	stop := fault(StopLong, "s1", 2050*time.Millisecond, 7*time.Second, true)
	r := check(t, pausedLeader(stop))
	failures(t, r)
	want := []Overlap{{Overlap: theOverlap, Window: PausedPastConfirm, Faults: []Fault{stop}}}
	if !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}
	text := written(r)
	line := "  explained: s2 and s1 both wrote from 12:00:07.020 to 12:00:07.120: frozen past its session or confirm (SIGSTOP; at-least-one, or no --fence), by stop-long s1 12:00:02.050-12:00:07.000 (leader)\n"
	if !strings.Contains(text, "overlaps: 1 explained, 0 unexplained\n"+line) || !strings.HasSuffix(text, "\nPASS\n") {
		t.Errorf("no %q in report:\n%s", line, text)
	}
}

// With the fence on, the stale lines must have been refused: the overlap
// is unexplained, and each stale line is an epoch drop.
func TestOverlapPausedWithFence(t *testing.T) {
	in := pausedLeader(fault(StopLong, "s1", 2050*time.Millisecond, 7*time.Second, true))
	in.Fence = true
	r := check(t, in)
	failures(t, r, "epoch drops", "unexplained overlaps")
	if want := []Overlap{{Overlap: theOverlap}}; !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}
	wantDrops := []Finding{
		{Line: 28, Time: ts(7020 * time.Millisecond), Detail: "s1 wrote epoch=10 after s2 wrote epoch=20 at line 22"},
		{Line: 30, Time: ts(7120 * time.Millisecond), Detail: "s1 wrote epoch=10 after s2 wrote epoch=20 at line 22"},
	}
	if !reflect.DeepEqual(r.EpochDrops, wantDrops) {
		t.Errorf("epoch drops = %+v, want %+v", r.EpochDrops, wantDrops)
	}
	text := written(r)
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
	edge := 7020*time.Millisecond - 2*step - time.Second // 5.82 s
	for _, c := range []struct {
		name   string
		f      Fault
		slack  time.Duration
		policy string
		ok     bool
	}{
		{"no stop: a hole", fault(HoleLong, "s1", 2050*time.Millisecond, 7*time.Second, true), 0, atMostOne, false},
		{"stop of another speaker", fault(StopLong, "s3", 2050*time.Millisecond, 7*time.Second, false), 0, atMostOne, false},
		{"short stop of the new leader", fault(StopShort, "s2", 6600*time.Millisecond, 6700*time.Millisecond, true), 0, atMostOne, true},
		{"ended at the window's start", fault(StopLong, "s1", 0, edge, true), 0, atMostOne, true},
		{"ended just before it", fault(StopLong, "s1", 0, edge-1, true), 0, atMostOne, false},
		{"just before it, with slack", fault(StopLong, "s1", 0, edge-1, true), 1, atMostOne, true},
		{"ended as the overlap ended", fault(StopLong, "s1", 0, 7120*time.Millisecond, true), 0, atMostOne, true},
		{"ended after it", fault(StopLong, "s1", 0, 7120*time.Millisecond+1, true), 0, atMostOne, false},
		// The runner notes a stop's end just before its SIGCONT; the slack
		// covers the moment between, in which the speaker may write.
		{"just after it, with slack", fault(StopLong, "s1", 0, 7120*time.Millisecond+1, true), 1, atMostOne, true},
		// Nothing confirms an at-least-one line: a freeze past the session
		// opens the window whatever the fence (README: the policies).
		{"at-least-one", fault(StopLong, "s1", 2050*time.Millisecond, 7*time.Second, true), 0, atLeastOne, true},
		{"at-least-one, stop of another speaker", fault(StopLong, "s3", 2050*time.Millisecond, 7*time.Second, false), 0, atLeastOne, false},
	} {
		in := pausedLeader(c.f)
		in.Slack, in.Policy = c.slack, c.policy
		r := check(t, in)
		if len(r.Overlaps) != 1 || r.Overlaps[0].Explained() != c.ok || c.ok && r.Overlaps[0].Window != PausedPastConfirm {
			t.Errorf("%s: overlaps %+v, want explained %v", c.name, r.Overlaps, c.ok)
		}
	}
}

// partitionedLeader is an at-least-one soak (no epochs) in which s1 speaks
// from 0 to 7.1 s, through a partition, and s2, elected meanwhile, from
// 6.5 s to 10 s.
func partitionedLeader(faults ...Fault) Input {
	o := (&outFile{}).speak("s1", 1, 0, 0, 72).speak("s2", 1, 0, 6500*time.Millisecond, 36)
	in := input(o, 10050*time.Millisecond, faults...)
	in.Fence, in.Policy = false, atLeastOne
	return in
}

func TestOverlapPartitioned(t *testing.T) {
	hole := fault(HoleLong, "s1", 2050*time.Millisecond, 7*time.Second, true)
	r := check(t, partitionedLeader(hole))
	failures(t, r)
	o := speaker.Overlap{A: "s1", B: "s2", From: ts(6500 * time.Millisecond), To: ts(7100 * time.Millisecond)}
	if want := []Overlap{{Overlap: o, Window: Partitioned, Faults: []Fault{hole}}}; !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}

	r = check(t, partitionedLeader())
	failures(t, r, "unexplained overlaps")
	if want := []Overlap{{Overlap: o}}; !reflect.DeepEqual(r.Overlaps, want) {
		t.Errorf("overlaps = %+v, want %+v", r.Overlaps, want)
	}
}

// Which faults open the partition window: a network fault of one of the
// two writers, or any server fault, from its start to a session (and the
// slack) after its end, reaching into the overlap (6.5 s to 7.1 s).
func TestOverlapPartitionedWindow(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     Fault
		slack time.Duration
		ok    bool
	}{
		{"reset of s2", fault(Reset, "s2", 3*time.Second, 3*time.Second, false), 0, true},
		{"storm of s1", fault(Storm, "s1", 7*time.Second, 7100*time.Millisecond, true), 0, true},
		{"hole of another speaker", fault(HoleLong, "s3", 2050*time.Millisecond, 7*time.Second, false), 0, false},
		{"hole healed a session before", fault(HoleShort, "s1", time.Second, 2500*time.Millisecond, true), 0, true},
		{"hole healed just earlier", fault(HoleShort, "s1", time.Second, 2500*time.Millisecond-1, true), 0, false},
		{"just earlier, with slack", fault(HoleShort, "s1", time.Second, 2500*time.Millisecond-1, true), 1, true},
		{"hole begun as it ended", fault(HoleShort, "s1", 7100*time.Millisecond, 8*time.Second, true), 0, true},
		{"hole begun after it", fault(HoleShort, "s1", 7100*time.Millisecond+1, 8*time.Second, true), 0, false},
		{"any server killed", fault(ServerKill, "zk2", 3*time.Second, 3500*time.Millisecond, false), 0, true},
		{"quorum lost", fault(QuorumLoss, "zk1", 5*time.Second, 5100*time.Millisecond, false), 0, true},
		{"server killed too early", fault(ServerKill, "zk2", 0, 2*time.Second, false), 0, false},
		{"a kill is no partition", fault(Kill, "s1", 6*time.Second, 7*time.Second, true), 0, false},
		{"a delete is no partition", fault(DeleteLeader, "s1", 6*time.Second, 6*time.Second, true), 0, false},
	} {
		in := partitionedLeader(c.f)
		in.Slack = c.slack
		r := check(t, in)
		if len(r.Overlaps) != 1 || r.Overlaps[0].Explained() != c.ok || c.ok && r.Overlaps[0].Window != Partitioned {
			t.Errorf("%s: overlaps %+v, want explained %v", c.name, r.Overlaps, c.ok)
		}
	}
}
