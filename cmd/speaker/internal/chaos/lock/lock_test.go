package lock

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// A seeded soak of zklock contenders under every kind of fault: no two
// critical sections at once, epochs that grow from holder to holder, the
// lock taken again within the bound after every fault, nothing left in
// ZooKeeper.
func TestLockSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 21, Duration: 12 * time.Second, Speakers: 3, Policy: "at-most-one", Fence: true,
		Servers: 1, Speaker: chaostest.Build(t, nil, "zklock")}, func(rep chaos.Report) string {
		if rep.Terms < 2 {
			return fmt.Sprintf("%d holder in the soak, want at least 2: the lock never changed hands", rep.Terms)
		}
		return ""
	})
}

// The lock's checker catches a zklock built broken: its engine
// keeps the lock through a black hole, and its watchdog never stops CMD,
// so the next holder's critical section overlaps the old one's.
func TestLockSoakCatchesABrokenLock(t *testing.T) {
	t.Parallel()
	// Each CMD holds on past the soak's end: a holder cut off loses the
	// lock with its CMD at work, which must then overlap the next one's.
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 3, Duration: 12 * time.Second, Speakers: 3, Policy: "at-most-one",
		Servers: 1, Kinds: []chaos.Kind{chaos.HoleLong}, Hold: time.Minute, Speaker: chaostest.Build(t, append(slices.Clone(sabotage.Election), sabotage.Lock...), "zklock")}, "unexplained overlaps", chaostest.Unexplained)
}

// A lock soak is reported in its words: its holders and critical
// sections, never a speaker's leader, handovers or terms.
func TestReportSpeaksTheRecipesWords(t *testing.T) {
	// s1's CMD holds the lock until 0.9 s; s1 is killed while it
	// holds it at 1.05 s; s2's CMD writes from 1.5 s.
	o := (&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10).Speak("s2", 1, 20, 1500*time.Millisecond, 10)
	in := chaostest.Input(o, 3*time.Second, chaostest.Fault(chaos.Kill, "s1", 1050*time.Millisecond, 1050*time.Millisecond, true))
	in.Recipe = Name
	chaostest.SpeaksItsWords(t, in,
		[]string{"lines of CMD 20, critical sections 2, contenders that held the lock 2 (s1, s2)\n", "hit the holder",
			"overlapping critical sections: 0 explained, 0 unexplained\n"},
		[]string{"kill 1 1 450ms 450ms 450ms 0"},
		[]string{"leader", "terms", "speaker"})
}

// An operator's delete of an election's znode (a speaker's, a lock
// holder's) is drawn on the ZooKeeper lane, not on a lane of its own
// named after the znode.
func TestPictureDrawsAnElectionsDeleteOnTheZooKeeperLane(t *testing.T) {
	del := chaos.Fault{Kind: chaos.DeleteLeader, Target: path + "/_c_3f0f-n_0000000002", Start: chaostest.TS(2 * chaostest.Step), End: chaostest.TS(2 * chaostest.Step), Leader: true}
	in := chaostest.Input((&chaostest.OutFile{}).Speak("s1", 1, 10, 0, 10), 10*chaostest.Step, del)
	in.Recipe = Name
	var b bytes.Buffer
	chaos.WritePicture(&b, "title", in, chaos.Report{})
	d := chaostest.ReadDrawing(t, b.String(), chaostest.TS(0), chaostest.TS(10*chaostest.Step))
	if _, ok := d.Lanes[del.Target]; ok || !d.Touched("zookeeper", "delete-holder", 2*chaostest.Step, 2*chaostest.Step) {
		t.Errorf("the holder's delete is not on the ZooKeeper lane; lanes %v", d.Lanes)
	}
}
