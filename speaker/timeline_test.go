package speaker_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// outFile writes lines as a speaker would: at t0+offset, by name, counting.
type outFile struct {
	t0    time.Time
	b     strings.Builder
	count map[string]int
}

func newOutFile() *outFile {
	return &outFile{t0: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), count: map[string]int{}}
}

// speak writes n lines by name every step from offset.
func (o *outFile) speak(name string, offset time.Duration, n int, step time.Duration) *outFile {
	for i := 0; i < n; i++ {
		o.count[name]++
		fmt.Fprintf(&o.b, "%s %s %d\n", o.t0.Add(offset+time.Duration(i)*step).Format(speaker.TimeLayout), name, o.count[name])
	}
	return o
}

func (o *outFile) raw(s string) *outFile { o.b.WriteString(s); return o }

func (o *outFile) read(t *testing.T) *speaker.Timeline {
	t.Helper()
	tl, err := speaker.ReadTimeline(strings.NewReader(o.b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func kinds(tl *speaker.Timeline) []string {
	var out []string
	for _, a := range tl.Anomalies {
		out = append(out, a.Kind.String())
	}
	return out
}

func TestTimelineHandovers(t *testing.T) {
	// a speaks 5 s, is killed; b takes over 2.3 s later; b is stopped; a
	// second process named a could not come back, but c does after 15 ms.
	tl := newOutFile().
		speak("a", 0, 6, time.Second).
		speak("b", 7300*time.Millisecond, 4, time.Second).
		speak("c", 10315*time.Millisecond, 3, time.Second).
		read(t)
	if len(tl.Anomalies) != 0 {
		t.Fatalf("anomalies in a clean file: %+v", tl.Anomalies)
	}
	want := []struct {
		name     string
		lines    int
		from, to uint64
		gap      time.Duration
	}{{"a", 6, 1, 6, 0}, {"b", 4, 1, 4, 2300 * time.Millisecond}, {"c", 3, 1, 3, 15 * time.Millisecond}}
	if len(tl.Terms) != len(want) {
		t.Fatalf("terms = %+v, want %d", tl.Terms, len(want))
	}
	for i, w := range want {
		got := tl.Terms[i]
		if got.Name != w.name || got.Lines != w.lines || got.FromCounter != w.from || got.ToCounter != w.to || got.GapBefore != w.gap || got.HasGapBefore != (i > 0) {
			t.Errorf("term %d = %+v, want %+v", i+1, got, w)
		}
	}
	if tl.Lines() != 13 || strings.Join(tl.Writers, ",") != "a,b,c" {
		t.Errorf("lines %d, writers %v", tl.Lines(), tl.Writers)
	}
}

func TestTimelineOverlap(t *testing.T) {
	// b starts speaking while a still does: both write every second for
	// 3 s, interleaved. That is two leaders, even though each line alone
	// looks fine.
	o := newOutFile().speak("a", 0, 5, time.Second)
	for i := 0; i < 3; i++ {
		o.speak("b", 5*time.Second+time.Duration(i)*time.Second, 1, 0)
		o.speak("a", 5500*time.Millisecond+time.Duration(i)*time.Second, 1, 0)
	}
	tl := o.speak("b", 8*time.Second, 3, time.Second).read(t)
	if got := kinds(tl); len(got) != 1 || got[0] != "overlap" {
		t.Fatalf("anomalies = %+v, want one overlap", tl.Anomalies)
	}
	ov := tl.Overlaps()
	if len(ov) != 1 || ov[0].A != "a" || ov[0].B != "b" || !ov[0].From.Equal(o.t0.Add(5*time.Second)) || !ov[0].To.Equal(o.t0.Add(7500*time.Millisecond)) {
		t.Errorf("overlaps = %+v, want a and b from +5s to +7.5s", ov)
	}
}

func TestTimelineNoOverlapAtAQuickHandover(t *testing.T) {
	// A graceful handover: b's first line 12 ms after a's last one.
	tl := newOutFile().speak("a", 0, 4, time.Second).speak("b", 3012*time.Millisecond, 4, time.Second).read(t)
	if len(tl.Anomalies) != 0 || len(tl.Terms) != 2 || tl.Terms[1].GapBefore != 12*time.Millisecond {
		t.Fatalf("anomalies %+v, terms %+v", tl.Anomalies, tl.Terms)
	}
}

func TestTimelineCounterJumpAndTornLines(t *testing.T) {
	o := newOutFile().speak("a", 0, 3, time.Second)
	o.count["a"] += 2 // two lines lost
	o.speak("a", 3*time.Second, 2, time.Second)
	o.raw("2026-11-22T10:00:05.1Z b\n")                              // torn: no counter
	o.raw("2026-11-22T10:00:05.2Z b 1 2026-11-22T10:00:05.3Z c 1\n") // two lines glued into one
	o.raw("garbage\n")
	tl := o.read(t)
	got := kinds(tl)
	if strings.Join(got, ",") != "counter jump,torn line,torn line,torn line" {
		t.Fatalf("anomalies = %+v", tl.Anomalies)
	}
	if a := tl.Anomalies[0]; a.Line != 4 || !strings.Contains(a.Detail, "a wrote 6 after 3") || a.Name != "a" || !a.Time.Equal(o.t0.Add(3*time.Second)) {
		t.Errorf("counter jump = %+v, want line 4, a wrote 6 after 3, at +3s", a)
	}
	for i, line := range []int{6, 7, 8} {
		if a := tl.Anomalies[i+1]; a.Line != line {
			t.Errorf("torn line %d found at line %d, want %d", i+1, a.Line, line)
		}
	}
	if len(tl.Writers) != 1 {
		t.Errorf("writers = %v: a torn line must not count as a writer's line", tl.Writers)
	}
}

func TestTimelineEmpty(t *testing.T) {
	tl := newOutFile().read(t)
	if len(tl.Terms) != 0 || len(tl.Anomalies) != 0 || tl.Lines() != 0 {
		t.Fatalf("empty file: %+v", tl)
	}
}

func TestTimelineRestartUnderTheSameName(t *testing.T) {
	// a is stopped and started again with the same --name: its counter
	// starts from 1 in a new term. That is a new process, not lost lines.
	o := newOutFile().speak("a", 0, 3, time.Second).speak("b", 3*time.Second, 3, time.Second)
	o.count["a"] = 0
	tl := o.speak("a", 6*time.Second, 2, time.Second).speak("a", 8*time.Second, 0, 0).read(t)
	if len(tl.Anomalies) != 0 || len(tl.Terms) != 3 || tl.Terms[2].FromCounter != 1 || tl.Terms[2].ToCounter != 2 {
		t.Fatalf("anomalies %+v, terms %+v", tl.Anomalies, tl.Terms)
	}
	// Restarted and leading at once again, with no one in between: still
	// two terms, so that each shows its own counters.
	o = newOutFile().speak("a", 0, 3, time.Second)
	o.count["a"] = 0
	tl = o.speak("a", 3*time.Second, 2, time.Second).read(t)
	if len(tl.Anomalies) != 0 || len(tl.Terms) != 2 {
		t.Fatalf("anomalies %+v, terms %+v", tl.Anomalies, tl.Terms)
	}
}

func TestTimelineQuickReturnIsNoOverlapWhenTheEpochSaysSo(t *testing.T) {
	// a leads (epoch 5), b leads for one line (epoch 7), and a wins again
	// (epoch 9) within 1.5 intervals of its last line. By timing alone a
	// never stopped; the epochs show three leaderships, one after another.
	o := newOutFile()
	line := func(offset time.Duration, name string, epoch int) {
		o.count[name]++
		o.raw(fmt.Sprintf("%s %s %d epoch=%d\n", o.t0.Add(offset).Format(speaker.TimeLayout), name, o.count[name], epoch))
	}
	for i := 0; i < 4; i++ {
		line(time.Duration(i)*time.Second, "a", 5)
	}
	line(3300*time.Millisecond, "b", 7)
	for i := 0; i < 4; i++ {
		line(4200*time.Millisecond+time.Duration(i)*time.Second, "a", 9)
	}
	tl := o.read(t)
	if len(tl.Anomalies) != 0 || len(tl.Terms) != 3 {
		t.Fatalf("anomalies %+v, terms %+v", tl.Anomalies, tl.Terms)
	}
	var epochs []int64
	for _, st := range tl.Stretches() {
		epochs = append(epochs, st.Epoch)
	}
	if fmt.Sprint(epochs) != "[5 7 9]" {
		t.Errorf("stretches have epochs %v, want [5 7 9]: one a leadership each", epochs)
	}
}

func TestTimelineTermsOfOneLineAreNoOverlap(t *testing.T) {
	// Without epochs (at-least-one): a speaks once, b leads for 10 s, a
	// leads again for one line. a's only gap spans b's term; it must not
	// be taken for a's cadence, or a would seem to speak throughout.
	tl := newOutFile().speak("a", 0, 1, 0).speak("b", time.Second, 10, time.Second).speak("a", 11*time.Second, 1, 0).read(t)
	if len(tl.Anomalies) != 0 || len(tl.Terms) != 3 {
		t.Fatalf("anomalies %+v, terms %+v", tl.Anomalies, tl.Terms)
	}
}

func TestTimelineWritersThatTakeTurnsLineByLineOverlap(t *testing.T) {
	// Three leaders at once, each writing every 600 ms, their lines
	// interleaved so that no writer ever writes two in a row: a student's
	// speaker with no election at all. Each writer's spacing must come from
	// its own lines, or none of them is joined and nothing overlaps.
	o := newOutFile()
	for i := 0; i < 10; i++ {
		for k, name := range []string{"a", "b", "c"} {
			o.speak(name, time.Duration(3*i+k)*200*time.Millisecond, 1, 0)
		}
	}
	tl := o.read(t)
	pairs := map[string]bool{}
	for _, ov := range tl.Overlaps() {
		pairs[ov.A+ov.B] = true
	}
	if !pairs["ab"] || !pairs["bc"] || !pairs["ac"] {
		t.Fatalf("overlaps %+v: want a with b, b with c and a with c", tl.Overlaps())
	}
}

func TestTimelineAWriterBetweenTwoTermsOfAnotherIsNoOverlap(t *testing.T) {
	// Without epochs (at-least-one): a writes one line, b leads steadily
	// for 5 s, a leads for one line, c leads for 5 s, a for one line. a's
	// gaps span the others' terms, so they are not its spacing.
	tl := newOutFile().speak("a", 0, 1, 0).speak("b", time.Second, 5, time.Second).
		speak("a", 6*time.Second, 1, 0).speak("c", 7*time.Second, 5, time.Second).
		speak("a", 12*time.Second, 1, 0).read(t)
	if len(tl.Anomalies) != 0 {
		t.Fatalf("anomalies %+v: a's one-line terms are not a stretch over b's and c's", tl.Anomalies)
	}
}
