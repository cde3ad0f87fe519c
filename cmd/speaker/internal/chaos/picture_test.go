package chaos

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A process that writes no line (the group's watcher, a config updater)
// still gets a lane when a fault hits it: its faults drawn on the
// ZooKeeper lane would read as the servers' faults.
func TestPictureGivesEveryFaultedProcessALane(t *testing.T) {
	in := input((&outFile{}).speak("m1", 1, 0, 0, 10), 10*step,
		fault(HoleLong, "watcher", step, 5*step, false),
		fault(ServerKill, "zk2", 2*step, 3*step, false))
	var b bytes.Buffer
	writePicture(&b, "title", in, Report{})
	svg := b.String()
	for _, lane := range []string{">m1<", ">watcher<", ">zookeeper<"} {
		if !strings.Contains(svg, lane) {
			t.Errorf("no lane %s in the picture", lane)
		}
	}
}

// groupPicture is a recorded group soak of 10 s drawn: the operator could
// not read from 3.1 s to 5 s (two servers down), m1 was read and not
// listed from 6 s to 8 s, the watcher followed every change 50 ms late,
// an operator deleted m2's znode at 1 s, and the checker found m1 missing
// at 7 s.
func groupPicture(t *testing.T) drawing {
	t.Helper()
	h := groupHistory{end: 10 * time.Second, gaps: []gap{{member: "m1", from: 6 * time.Second, to: 8 * time.Second}}}
	in := h.input()
	in.Recipe = RecipeGroup
	in.Group.Samples = slices.DeleteFunc(in.Group.Samples, func(r reading) bool { return r.At.After(ts(3*time.Second)) && r.At.Before(ts(5*time.Second)) })
	in.Group.Unread = []span{{From: ts(3100 * time.Millisecond), To: ts(5 * time.Second)}}
	in.Faults = []Fault{
		{Kind: DeleteLeader, Target: groupPath + "/m2", Start: ts(time.Second), End: ts(time.Second)},
		fault(QuorumLoss, "zk1+zk2", 2900*time.Millisecond, 4900*time.Millisecond, false),
		fault(HoleLong, "m1", 5*time.Second, 7500*time.Millisecond, false),
	}
	rep := Report{Group: true, Listing: []Finding{{Time: ts(7 * time.Second), Detail: "m1 not listed, though its process has run"}}}
	var b bytes.Buffer
	writePicture(&b, "title", in, rep)
	return readDrawing(t, b.String(), ts(0), ts(10*time.Second))
}

// A group's picture tells "ZooKeeper did not list the member" (an empty
// lane) apart from "the operator could not read at all" (hatched, on
// every lane), which would otherwise read as everyone leaving at once.
func TestGroupPictureTellsUnreadFromNotListed(t *testing.T) {
	d := groupPicture(t)
	for _, m := range []string{"m1", "m2", "m3"} {
		if !d.covered(m, "could not read", 3100*time.Millisecond, 5*time.Second) {
			t.Errorf("%s's lane is not marked unread from 3.1 s to 5 s:\n%s", m, d.titles(m))
		}
		if !d.covered(m, "listed", 1200*time.Millisecond, 2900*time.Millisecond) {
			t.Errorf("%s's lane is not green while listed, 1.2 s to 2.9 s:\n%s", m, d.titles(m))
		}
	}
	if d.touched("m1", "listed", 6050*time.Millisecond, 7950*time.Millisecond) {
		t.Errorf("m1's lane is green from 6 s to 8 s, where ZooKeeper did not list it:\n%s", d.titles("m1"))
	}
	if !strings.Contains(d.svg, "could not read") || !strings.Contains(d.svg, "not listed") {
		t.Error("the key under the picture does not say what hatched and empty mean")
	}
}

// The watcher's lane is green where its last report agrees with the
// operator's reading; an operator's delete of a member's znode is drawn
// on that member's lane; what the checker found is on the checker's.
func TestGroupPictureShowsTheWatcherTheDeleteAndTheFindings(t *testing.T) {
	d := groupPicture(t)
	if !d.covered(watcherName, "agrees", 1200*time.Millisecond, 2900*time.Millisecond) {
		t.Errorf("the watcher's lane is not green where it agrees with the listing:\n%s", d.titles(watcherName))
	}
	if d.touched(watcherName, "agrees", 3200*time.Millisecond, 4900*time.Millisecond) {
		t.Errorf("the watcher's lane is green while nothing could be read:\n%s", d.titles(watcherName))
	}
	if !d.touched("m2", "delete", time.Second, time.Second) {
		t.Errorf("the delete of m2's znode is not on m2's lane:\n%s", d.titles("m2"))
	}
	if !d.touched("checker", "m1 not listed", 7*time.Second, 7*time.Second) {
		t.Errorf("the checker's finding at 7 s is not on its lane:\n%s", d.titles("checker"))
	}
}

// drawing is an SVG picture read back: its lanes' tops, and every
// rectangle that has a title.
type drawing struct {
	svg      string
	from, to time.Time
	lanes    map[string]float64
	rects    []titled
}

type titled struct {
	x1, x2, y float64
	title     string
}

var (
	laneLabel  = regexp.MustCompile(`<text x="16.0" y="([\d.]+)" font-size="13" fill="#222">([^<]+)</text>`)
	titledRect = regexp.MustCompile(`<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"[^>]*><title>([^<]*)</title></rect>`)
)

func readDrawing(t *testing.T, svg string, from, to time.Time) drawing {
	t.Helper()
	d := drawing{svg: svg, from: from, to: to, lanes: map[string]float64{}}
	for _, m := range laneLabel.FindAllStringSubmatch(svg, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		d.lanes[m[2]] = y - 16
	}
	for _, m := range titledRect.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		d.rects = append(d.rects, titled{x1: x, x2: x + w, y: y, title: m[4]})
	}
	if len(d.lanes) == 0 {
		t.Fatalf("no lanes in the picture:\n%s", svg)
	}
	return d
}

// x is where the picture draws the moment at into the soak.
func (d drawing) x(at time.Duration) float64 {
	return picLeft + float64(at)/float64(d.to.Sub(d.from))*(picWidth-picLeft-20)
}

// on lists the rectangles on lane whose title has what.
func (d drawing) on(lane, what string) []titled {
	top, ok := d.lanes[lane]
	var out []titled
	for _, r := range d.rects {
		if ok && r.y >= top && r.y < top+laneH && strings.Contains(r.title, what) {
			out = append(out, r)
		}
	}
	return out
}

// covered says whether one rectangle of the kind covers from to to.
func (d drawing) covered(lane, what string, from, to time.Duration) bool {
	return slices.ContainsFunc(d.on(lane, what), func(r titled) bool { return r.x1 <= d.x(from)+0.5 && r.x2 >= d.x(to)-0.5 })
}

// touched says whether a rectangle of the kind shares a moment with from
// to to.
func (d drawing) touched(lane, what string, from, to time.Duration) bool {
	return slices.ContainsFunc(d.on(lane, what), func(r titled) bool { return r.x1 <= d.x(to)+0.5 && r.x2 >= d.x(from)-0.5 })
}

func (d drawing) titles(lane string) string {
	var b strings.Builder
	for _, r := range d.on(lane, "") {
		b.WriteString(r.title + "\n")
	}
	return b.String()
}

// An operator's delete of an election's znode (a speaker's, a lock
// holder's) is drawn on the ZooKeeper lane, not on a lane of its own
// named after the znode.
func TestPictureDrawsAnElectionsDeleteOnTheZooKeeperLane(t *testing.T) {
	del := Fault{Kind: DeleteLeader, Target: lockPath + "/_c_3f0f-n_0000000002", Start: ts(2 * step), End: ts(2 * step), Leader: true}
	in := input((&outFile{}).speak("s1", 1, 10, 0, 10), 10*step, del)
	in.Recipe = RecipeLock
	var b bytes.Buffer
	writePicture(&b, "title", in, Report{})
	d := readDrawing(t, b.String(), ts(0), ts(10*step))
	if _, ok := d.lanes[del.Target]; ok || !d.touched("zookeeper", "delete-holder", 2*step, 2*step) {
		t.Errorf("the holder's delete is not on the ZooKeeper lane; lanes %v", d.lanes)
	}
}
