package chaos

import (
	"bytes"
	"strings"
	"testing"

	"zkspeaker/speaker"
)

// A process that writes no line (the group's watcher, a config updater)
// still gets a lane when a fault hits it: its faults drawn on the
// ZooKeeper lane would read as the servers' faults.
func TestPictureGivesEveryFaultedProcessALane(t *testing.T) {
	out := (&outFile{}).speak("m1", 1, 0, 0, 10).bytes()
	tl, err := speaker.ReadTimeline(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	faults := []Fault{
		{Kind: HoleLong, Target: "watcher", Start: ts(step), End: ts(5 * step)},
		{Kind: ServerKill, Target: "zk2", Start: ts(2 * step), End: ts(3 * step)},
	}
	var b bytes.Buffer
	writePicture(&b, "title", "a member listed", tl, faults, Report{}, ts(0), ts(10*step))
	svg := b.String()
	for _, lane := range []string{">m1<", ">watcher<", ">zookeeper<"} {
		if !strings.Contains(svg, lane) {
			t.Errorf("no lane %s in the picture", lane)
		}
	}
}
