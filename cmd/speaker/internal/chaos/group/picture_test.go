package group

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// groupPicture is a recorded group soak of 10 s drawn: the operator could
// not read from 3.1 s to 5 s (two servers down), m1 was read and not
// listed from 6 s to 8 s, the watcher followed every change 50 ms late,
// an operator deleted m2's znode at 1 s, and the checker found m1 missing
// at 7 s.
func groupPicture(t *testing.T) chaostest.Drawing {
	t.Helper()
	h := groupHistory{end: 10 * time.Second, gaps: []gap{{member: "m1", from: 6 * time.Second, to: 8 * time.Second}}}
	in := h.input()
	in.Recipe = Name
	in.Record.(*Record).Samples = slices.DeleteFunc(in.Record.(*Record).Samples, func(r reading) bool {
		return r.At.After(chaostest.TS(3*time.Second)) && r.At.Before(chaostest.TS(5*time.Second))
	})
	in.Record.(*Record).Unread = []chaos.Span{{From: chaostest.TS(3100 * time.Millisecond), To: chaostest.TS(5 * time.Second)}}
	in.Faults = []chaos.Fault{
		{Kind: chaos.DeleteLeader, Target: groupPath + "/m2", Start: chaostest.TS(time.Second), End: chaostest.TS(time.Second)},
		chaostest.Fault(chaos.QuorumLoss, "zk1+zk2", 2900*time.Millisecond, 4900*time.Millisecond, false),
		chaostest.Fault(chaos.HoleLong, "m1", 5*time.Second, 7500*time.Millisecond, false),
	}
	rep := chaos.Report{Recipe: Name, Own: []chaos.Section{{What: "wrong listings", Mark: "wrong listing", Found: []chaos.Finding{{Time: chaostest.TS(7 * time.Second), Detail: "m1 not listed, though its process has run"}}}}}
	var b bytes.Buffer
	chaos.WritePicture(&b, "title", in, rep)
	return chaostest.ReadDrawing(t, b.String(), chaostest.TS(0), chaostest.TS(10*time.Second))
}

// A group's picture tells "ZooKeeper did not list the member" (an empty
// lane) apart from "the operator could not read at all" (hatched, on
// every lane), which would otherwise read as everyone leaving at once.
func TestGroupPictureTellsUnreadFromNotListed(t *testing.T) {
	d := groupPicture(t)
	for _, m := range []string{"m1", "m2", "m3"} {
		if !d.Covered(m, "could not read", 3100*time.Millisecond, 5*time.Second) {
			t.Errorf("%s's lane is not marked unread from 3.1 s to 5 s:\n%s", m, d.Titles(m))
		}
		if !d.Covered(m, "listed", 1200*time.Millisecond, 2900*time.Millisecond) {
			t.Errorf("%s's lane is not green while listed, 1.2 s to 2.9 s:\n%s", m, d.Titles(m))
		}
	}
	if d.Touched("m1", "listed", 6050*time.Millisecond, 7950*time.Millisecond) {
		t.Errorf("m1's lane is green from 6 s to 8 s, where ZooKeeper did not list it:\n%s", d.Titles("m1"))
	}
	if !strings.Contains(d.SVG, "could not read") || !strings.Contains(d.SVG, "not listed") {
		t.Error("the key under the picture does not say what hatched and empty mean")
	}
}

// The watcher's lane is green where its last report agrees with the
// operator's reading; an operator's delete of a member's znode is drawn
// on that member's lane; what the checker found is on the checker's.
func TestGroupPictureShowsTheWatcherTheDeleteAndTheFindings(t *testing.T) {
	d := groupPicture(t)
	if !d.Covered(watcherName, "agrees", 1200*time.Millisecond, 2900*time.Millisecond) {
		t.Errorf("the watcher's lane is not green where it agrees with the listing:\n%s", d.Titles(watcherName))
	}
	if d.Touched(watcherName, "agrees", 3200*time.Millisecond, 4900*time.Millisecond) {
		t.Errorf("the watcher's lane is green while nothing could be read:\n%s", d.Titles(watcherName))
	}
	if !d.Touched("m2", "delete", time.Second, time.Second) {
		t.Errorf("the delete of m2's znode is not on m2's lane:\n%s", d.Titles("m2"))
	}
	if !d.Touched("checker", "m1 not listed", 7*time.Second, 7*time.Second) {
		t.Errorf("the checker's finding at 7 s is not on its lane:\n%s", d.Titles("checker"))
	}
}
