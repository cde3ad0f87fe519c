package rwlock

import (
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/internal/testkit/sabotage"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// A seeded soak of three readers and two writers under every kind of fault:
// no writer's CMD beside another, readers together at times, the lock
// taken again within the bound after every fault, nothing left in
// ZooKeeper.
func TestRWLockSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 31, Duration: 12 * time.Second, Speakers: 5, Policy: "at-most-one",
		Servers: 1, Speaker: chaostest.Build(t, nil, "zklock")}, func(rep chaos.Report) string {
		if strings.Contains(rep.Summary, "readers together 0 times") || !strings.Contains(rep.Summary, "w1") && !strings.Contains(rep.Summary, "w2") {
			return "the soak did not show two readers together and a writer: " + rep.Summary
		}
		return ""
	})
}

// The read-write lock's checker catches a zklock built broken: its
// readers hold whoever stands ahead, so a reader's CMD runs beside a
// writer's.
func TestRWLockSoakCatchesAReaderThatIgnoresWriters(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 32, Duration: 10 * time.Second, Speakers: 4, Policy: "at-most-one",
		Servers: 1, Kinds: []chaos.Kind{chaos.Term}, Speaker: chaostest.Build(t, sabotage.Reader, "zklock")}, Overlaps, lock.Counted(Overlaps))
}

// Two readers' CMDs overlap and pass; a writer's beside a reader's fails,
// unless the writer's zklock was frozen when the operator deleted its
// znode, and its CMD stopped within a session of the freeze.
func TestCheckerJudgesWritersAlone(t *testing.T) {
	o := (&chaostest.OutFile{}).Speak("r1", 1, 0, 0, 20).Speak("r2", 1, 0, 500*time.Millisecond, 20).
		Speak("w1", 1, 0, 3*time.Second, 20)
	in := input(o, 6*time.Second)
	r := chaostest.Check(t, in)
	chaostest.Failures(t, r)
	if !strings.Contains(r.Summary, "readers together 1 times") {
		t.Errorf("summary %q: the readers' overlap is not counted", r.Summary)
	}

	o.Speak("w2", 1, 0, 4*time.Second, 10) // beside w1
	in = input(o, 6*time.Second)
	chaostest.Failures(t, chaostest.Check(t, in), Overlaps)

	// w1 frozen from 3.5 s, its znode deleted at 3.6 s: w2 holds from 4 s
	// until w1's CMD stops at 4.9 s, within the session of the freeze.
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.StopLong, "w1", 3500*time.Millisecond, 9*time.Second, true),
		chaostest.Fault(chaos.DeleteLeader, path+"/_c_1-n_0000000003", 3600*time.Millisecond, 3600*time.Millisecond, true)}
	r = chaostest.Check(t, in)
	chaostest.Failures(t, r)
	if len(r.Found("explained "+Overlaps)) != 1 {
		t.Errorf("the overlap in the window is not explained:\n%s", chaostest.Written(r))
	}
	in.Faults = in.Faults[:1] // frozen, but nobody deleted its znode
	chaostest.Failures(t, chaostest.Check(t, in), Overlaps)
}

// input is a soak of the read-write lock over o, without the fence, with
// the soak's slack.
func input(o *chaostest.OutFile, end time.Duration) chaos.Input {
	in := chaostest.Input(o, end)
	in.Recipe, in.Fence, in.Slack = Name, false, chaos.Slack
	return in
}

// The operator's delete of a holder's znode explains its CMD's lines
// beside the next holder's for an interval and the slack, no longer.
func TestCheckerExplainsALineAfterADelete(t *testing.T) {
	// w1 writes from 1 s to 1.9 s; w2 from 1.5 s, once w1's znode is
	// gone at 1.45 s: w1's lines to 1.9 s end 450 ms after the delete.
	o := (&chaostest.OutFile{}).Speak("w1", 1, 0, time.Second, 10).Speak("w2", 1, 0, 1500*time.Millisecond, 10)
	in := input(o, 4*time.Second)
	chaostest.Failures(t, chaostest.Check(t, in), Overlaps)
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.DeleteLeader, path+"/_c_1-n_0000000001", 1450*time.Millisecond, 1450*time.Millisecond, true)}
	chaostest.Failures(t, chaostest.Check(t, in))
	in.Faults[0].Start, in.Faults[0].End = chaostest.TS(1200*time.Millisecond), chaostest.TS(1200*time.Millisecond) // 700 ms before w1's last line
	chaostest.Failures(t, chaostest.Check(t, in), Overlaps)
}
