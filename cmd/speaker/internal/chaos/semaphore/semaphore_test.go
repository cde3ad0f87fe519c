package semaphore

import (
	"fmt"
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

// A seeded soak of four contenders for two leases under every kind of
// fault: never three CMDs at once, two at times, the leases taken again
// within the bound after every fault, nothing left at the gate or among
// the leases.
func TestSemaphoreSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 41, Duration: 12 * time.Second, Speakers: 4, Policy: "at-most-one",
		Servers: 1, Speaker: chaostest.Build(t, nil, "zklock")}, func(rep chaos.Report) string {
		if want := fmt.Sprintf("most CMDs at once %d of %d", Leases, Leases); !strings.Contains(rep.Summary, want) {
			return fmt.Sprintf("the leases were never all taken at once (want %q): %s", want, rep.Summary)
		}
		return ""
	})
}

// The semaphore's checker catches a zklock built broken: its gate and its
// leases' rule admit one holder more than the leases.
func TestSemaphoreSoakCatchesOneHolderTooMany(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 42, Duration: 10 * time.Second, Speakers: 6, Policy: "at-most-one",
		Servers: 1, Kinds: []chaos.Kind{chaos.Term}, Speaker: chaostest.Build(t, sabotage.Leases, "zklock")}, TooMany, lock.Counted(TooMany))
}

// Two CMDs at once pass; a third beside them fails, unless it is a stale
// holder in a documented window; a contender's znode left at the gate
// fails.
func TestCheckerCountsHolders(t *testing.T) {
	// s1 from 0 to 2.9 s, s2 from 0.5 to 3.4 s, s3 from 3.1 s: two at once.
	two := func() *chaostest.OutFile {
		return (&chaostest.OutFile{}).Speak("s1", 1, 0, 0, 30).Speak("s2", 1, 0, 500*time.Millisecond, 30).
			Speak("s3", 1, 0, 3100*time.Millisecond, 20)
	}
	r := chaostest.Check(t, input(two(), 6*time.Second))
	chaostest.Failures(t, r)
	if !strings.Contains(r.Summary, "most CMDs at once 2 of 2") {
		t.Errorf("summary %q", r.Summary)
	}

	in := input(two().Speak("s4", 1, 0, 2500*time.Millisecond, 2), 6*time.Second) // beside s1 and s2
	r = chaostest.Check(t, in)
	chaostest.Failures(t, r, TooMany)
	if n := len(r.Found(TooMany)); n != 1 {
		t.Errorf("%d findings of one crowd:\n%s", n, chaostest.Written(r))
	}

	// s1 frozen from 2 s, its lease deleted at 2.2 s: s4 holds from 2.5 s
	// while s1's CMD runs on to 2.9 s, within a session of the freeze.
	in.Faults = []chaos.Fault{chaostest.Fault(chaos.StopLong, "s1", 2*time.Second, 9*time.Second, true),
		chaostest.Fault(chaos.DeleteLeader, root+"/leases/_c_1-lease-0000000001", 2200*time.Millisecond, 2200*time.Millisecond, true)}
	r = chaostest.Check(t, in)
	chaostest.Failures(t, r)
	if found := r.Found("explained " + TooMany); len(found) != 1 || strings.Count(found[0].Detail, "delete-holder") != 1 {
		t.Errorf("the stale holder is not explained, by the delete named once:\n%s", chaostest.Written(r))
	}
	in.Faults = in.Faults[:1] // frozen, but nobody deleted its lease
	chaostest.Failures(t, chaostest.Check(t, in), TooMany)

	in = input(two(), 6*time.Second)
	in.Record = []string{root + "/gate/_c_2-n_0000000004"}
	chaostest.Failures(t, chaostest.Check(t, in), Gate)
}

// input is a soak of the semaphore over o, without the fence, with
// the soak's slack.
func input(o *chaostest.OutFile, end time.Duration) chaos.Input {
	in := chaostest.Input(o, end)
	in.Recipe, in.Fence, in.Slack = Name, false, chaos.Slack
	return in
}
