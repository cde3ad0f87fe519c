package barrier

import (
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// A round of three with every slot passes; a round without one of them
// fails, unless a fault on the missing one came while it could have been
// counted and before its CMD would have started.
func TestCheckerWantsEverySlotInARound(t *testing.T) {
	full := (&chaostest.OutFile{}).Speak("s1", 1, 5, 0, 10).Speak("s2", 1, 5, 20*time.Millisecond, 12).Speak("s3", 1, 5, 30*time.Millisecond, 8)
	chaostest.Failures(t, chaostest.Check(t, input(full, 5*time.Second)))

	short := (&chaostest.OutFile{}).Speak("s1", 1, 5, 0, 10).Speak("s2", 1, 5, 20*time.Millisecond, 12).
		Speak("s1", 1, 9, 3*time.Second, 10).Speak("s2", 1, 9, 3*time.Second, 10) // round 9 without s3
	in := input(short, 5*time.Second)
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherIn)

	// s3 killed at 2 s: its znode counted in round 9 until its session
	// ended, and no CMD of its own.
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.Kill, "s3", 2*time.Second, 2*time.Second, false)}
	in.Out = (&chaostest.OutFile{}).Speak("s1", 1, 5, 0, 10).Speak("s2", 1, 5, 20*time.Millisecond, 12).Speak("s3", 1, 5, 30*time.Millisecond, 8).
		Speak("s1", 1, 9, 3*time.Second, 10).Speak("s2", 1, 9, 3*time.Second, 10).Bytes()
	chaostest.Failures(t, chaostest.Check(t, in))

	// A kill long before the round explains nothing; nor does a SIGTERM
	// a second before it: a signalled member takes its znode out.
	in.Faults[0].Start, in.Faults[0].End = chaostest.TS(-5*time.Second), chaostest.TS(-5*time.Second)
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherIn)
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.Term, "s3", 2*time.Second, 2*time.Second, false)}
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherIn)
	in.Faults[0].Start = chaostest.TS(3*time.Second - 100*time.Millisecond) // as the round opened
	chaostest.Failures(t, chaostest.Check(t, in))
}

// A killed member's znode counts until its session ends: the round can
// open with it and without another, live slot, whose absence the kill
// explains; a quorum's loss puts the end of that session off.
func TestCheckerTakesAKilledMembersZnodeForOneMissingSlot(t *testing.T) {
	// Round 9 from 3 s: s1 and s2 (s2 killed at 2 s, back at once), none
	// of s3.
	o := (&chaostest.OutFile{}).Speak("s1", 1, 9, 3*time.Second, 10).Speak("s2", 1, 9, 3*time.Second, 10)
	in := input(o, 5*time.Second)
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.Kill, "s2", 2*time.Second, 2*time.Second, false)}
	chaostest.Failures(t, chaostest.Check(t, in))

	in.Faults[0].Start, in.Faults[0].End = chaostest.TS(-4*time.Second), chaostest.TS(-4*time.Second)
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherIn)
	in.Faults = append(in.Faults, chaostest.Fault(chaos.QuorumLoss, "zk2+zk3", -3*time.Second, 1*time.Second, false))
	chaostest.Failures(t, chaostest.Check(t, in))

	// One kill explains one slot, not two.
	in.Out = (&chaostest.OutFile{}).Speak("s1", 1, 9, 3*time.Second, 10).Bytes()
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherIn)
}

// A member that sees its round empty before another CMD of the round has
// written its last line fails, unless that CMD's member was lost to a
// fault that began before and it stopped within the bound after.
func TestCheckerWantsEveryCMDEndedBeforeAnyoneIsOut(t *testing.T) {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 5, 0, 10).Speak("s2", 1, 5, 0, 25) // s2 until 2.4 s
	in := input(o, 5*time.Second)
	in.Record = Record{Slots: []string{"s1", "s2"}, Leaves: []Leave{{Name: "s1", Round: 5, At: chaostest.TS(2500 * time.Millisecond)}}}
	chaostest.Failures(t, chaostest.Check(t, in))

	in.Record = Record{Slots: []string{"s1", "s2"}, Leaves: []Leave{{Name: "s1", Round: 5, At: chaostest.TS(1500 * time.Millisecond)}}}
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherOut)

	// s2 cut off from 0.5 s to 1.4 s: its session may have ended, and
	// its CMD stopped well within a session after.
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.HoleLong, "s2", 500*time.Millisecond, 1400*time.Millisecond, false)}
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r)
	if len(r.Found("explained "+NotTogetherOut)) != 1 {
		t.Errorf("the lost member is not explained:\n%s", chaostest.Written(r))
	}
	// Of two faults that explain it, the report names the nearer one.
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.Storm, "s2", 100*time.Millisecond, 200*time.Millisecond, false),
		chaostest.Fault(chaos.HoleLong, "s2", 500*time.Millisecond, 1400*time.Millisecond, false)}
	r = chaostest.Check(t, in)
	if f := r.Found("explained " + NotTogetherOut); len(f) != 1 || !strings.Contains(f[0].Detail, "hole-long") {
		t.Errorf("the explanation should name the hole-long:\n%s", chaostest.Written(r))
	}
	// A cut that was over a session before s2's CMD began explains
	// nothing.
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.HoleLong, "s2", -9*time.Second, -8*time.Second, false)}
	chaostest.Failures(t, chaostest.Check(t, in), NotTogetherOut)
}

// A CMD without a round, and a member znode left behind, fail.
func TestCheckerWantsRoundsAndNothingLeft(t *testing.T) {
	o := (&chaostest.OutFile{}).Speak("s1", 1, 0, 0, 10).Speak("s2", 1, 0, 0, 10)
	chaostest.Failures(t, chaostest.Check(t, input(o, 5*time.Second)), NoRound)

	in := input((&chaostest.OutFile{}).Speak("s1", 1, 5, 0, 10).Speak("s2", 1, 5, 0, 10), 5*time.Second)
	in.Record = Record{Slots: []string{"s1", "s2"}, Left: []string{path + "/_c_1-member-0000000007"}}
	chaostest.Failures(t, chaostest.Check(t, in), LeftBehind)
}

// A member's leave is read from its log line.
func TestParseLeave(t *testing.T) {
	l, ok := parseLeave("s2", `time=2026-11-26T19:47:41.609Z level=INFO msg="every member of the round has left" name=s2 barrier=/chaos-barrier round=12`)
	if !ok || l.Round != 12 || l.Name != "s2" || l.At.Format("15:04:05.000") != "19:47:41.609" {
		t.Errorf("parseLeave: %+v, %v", l, ok)
	}
	if _, ok := parseLeave("s2", `time=2026-11-26T19:47:41.609Z level=INFO msg="entering the double barrier"`); ok {
		t.Error("parseLeave took another line")
	}
}

// input is a soak of the barrier over o with slots s1 to s3.
func input(o *chaostest.OutFile, end time.Duration) chaos.Input {
	in := chaostest.Input(o, end)
	in.Recipe, in.Fence, in.Slack = Name, false, 500*time.Millisecond
	in.Record = Record{Slots: []string{"s1", "s2", "s3"}}
	return in
}
