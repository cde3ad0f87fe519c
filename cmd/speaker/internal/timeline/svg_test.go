package timeline_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/timeline"
)

// demoLike is what make demo does: speaker-1 leads, gets SIGTERM 400 ms
// after its last line, and speaker-2 speaks 25 ms later; speaker-2 gets
// SIGKILL, and speaker-3 speaks when its session expires; a ZooKeeper
// server dies under speaker-3, which writes on.
func demoLike() (*script, []timeline.Event) {
	s := newScript().
		speak("speaker-1", 4294967299, 0, 14, time.Second).
		speak("speaker-2", 4294967303, 13425*time.Millisecond, 6, time.Second).
		speak("speaker-3", 4294967307, 24030*time.Millisecond, 12, time.Second)
	ev := func(offset time.Duration, kind, target, note string) timeline.Event {
		return timeline.Event{Time: s.t0.Add(offset), Kind: kind, Target: target, Note: note}
	}
	return s, []timeline.Event{
		ev(13400*time.Millisecond, "SIGTERM", "speaker-1", "the leader"),
		ev(18600*time.Millisecond, "SIGKILL", "speaker-2", "the new leader"),
		ev(28300*time.Millisecond, "SIGKILL", "zk-server-2", "the server speaker-3 talks to"),
	}
}

func TestSVGTeachesTheGaps(t *testing.T) {
	s, events := demoLike()
	p := draw(t, s.timeline(t), events)
	if got := p.texts("gap-label"); !slices.Equal(got, []string{"gap 425ms", "gap 5.605s"}) {
		t.Errorf("gap labels %q, want the 425ms after the SIGTERM and the 5.605s after the SIGKILL", got)
	}
	if got := p.texts("epoch"); !slices.Equal(got, []string{"epoch 4294967299", "epoch 4294967303", "epoch 4294967307"}) {
		t.Errorf("epoch labels %q, want one a term", got)
	}
	if got := p.texts("event-label"); !slices.Equal(got, []string{"SIGKILL speaker-2", "SIGKILL zk-server-2", "SIGTERM speaker-1"}) {
		t.Errorf("event labels %q", got)
	}
	lines := p.class("event")
	if len(lines) != 3 || !(lines[0].num("x1") < lines[1].num("x1") && lines[1].num("x1") < lines[2].num("x1")) {
		t.Errorf("event lines %+v, want three in time order", lines)
	}
	// Each gap's hatching lies between the bars it separates.
	bars, gaps := p.class("bar"), p.class("gap")
	if len(bars) != 3 || len(gaps) != 2 {
		t.Fatalf("%d bars and %d gaps, want 3 and 2", len(bars), len(gaps))
	}
	for i, g := range gaps {
		end, next := bars[i].num("x")+bars[i].num("width"), bars[i+1].num("x")
		if g.num("x") < end-0.5 || g.num("x")+g.num("width") > next+2.5 {
			t.Errorf("gap %d at %.1f+%.1f, want it between %.1f and %.1f", i+1, g.num("x"), g.num("width"), end, next)
		}
	}
	fills := map[string]bool{}
	for _, b := range bars {
		fills[b.attr("fill")] = true
	}
	if len(fills) != 3 {
		t.Errorf("bar colours %v, want one a writer", fills)
	}
	notes := strings.Join(p.texts("note"), "\n")
	for _, want := range []string{"the next line came 25ms later, by speaker-2", "the next line came 5.43s later, by speaker-3", "speaker-3 wrote on through it"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if bg := p.class("background"); len(bg) != 1 || bg[0].attr("fill") != "white" {
		t.Errorf("background %+v, want white", bg)
	}
	if n := len(p.class("overlap")) + len(p.class("jump")); n != 0 {
		t.Errorf("%d red marks on a clean file", n)
	}
	if ticks := p.texts("tick"); len(ticks) < 4 || !slices.Contains(ticks, "0s") || !slices.Contains(ticks, "10s") {
		t.Errorf("time ticks %q, want 0s, 10s and others", ticks)
	}
}

// troubled has a long name, an overlap of 2.5 s, a torn line and a
// counter jump.
func troubled() (*script, []timeline.Event) {
	long := "a-speaker-with-a-really-long-name-that-goes-on"
	s := newScript().speak(long, 100, 0, 6, time.Second)
	for i := range 3 {
		s.speak("b", 104, time.Duration(6+i)*time.Second, 1, 0)
		s.speak(long, 100, time.Duration(6+i)*time.Second+500*time.Millisecond, 1, 0)
	}
	s.speak("b", 104, 9*time.Second, 3, time.Second).raw("2026-11-22T10:00:12Z b 7 2026-11-22T1")
	s.speak("c", 108, 14500*time.Millisecond, 2, time.Second)
	s.count["c"] += 2
	s.speak("c", 108, 16500*time.Millisecond, 2, time.Second)
	return s, []timeline.Event{
		{Time: s.t0.Add(5700 * time.Millisecond), Kind: "SIGSTOP", Target: long, Note: "paused too long"},
		{Time: s.t0.Add(12200 * time.Millisecond), Kind: "SIGKILL", Target: "b"},
	}
}

func TestSVGMarksAnomaliesInRed(t *testing.T) {
	s, events := troubled()
	p := draw(t, s.timeline(t), events)
	if got := p.texts("overlap-label"); !slices.Equal(got, []string{"overlap 2.5s: two leaders"}) {
		t.Errorf("overlap labels %q", got)
	}
	if len(p.class("overlap")) != 1 || len(p.class("jump")) != 1 || len(p.class("jump-label")) != 1 {
		t.Errorf("%d overlaps and %d counter jumps marked, want 1 and 1", len(p.class("overlap")), len(p.class("jump")))
	}
	if got := p.texts("gap-label"); !slices.Equal(got, []string{"gap 3.5s"}) {
		t.Errorf("gap labels %q, want the 3.5s before c (none inside the overlap)", got)
	}
	// A long name is cut short of the plot; its tooltip has it whole.
	plot := p.class("bar")[0].num("x")
	for _, n := range p.class("name") {
		text := strings.TrimSpace(n.Text)
		// Right-aligned at x, 0.602 em a character in DejaVu Sans Mono.
		if width := 0.602 * 13 * float64(len([]rune(text))); len([]rune(text)) > 20 || n.num("x") > plot || n.num("x")-width < 0 {
			t.Errorf("name %q spans %.0f to %.0f, want it within 0 and the plot at %.0f", text, n.num("x")-width, n.num("x"), plot)
		}
		if strings.HasSuffix(text, "…") && !strings.HasPrefix(n.title(), strings.TrimSuffix(text, "…")) {
			t.Errorf("cut name %q has tooltip %q, want the whole name", text, n.title())
		}
	}
	notes := strings.Join(p.texts("note"), "\n")
	for _, want := range []string{"torn line", "counter jump: c wrote 5 after 2", "overlap: "} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// A note too long for a line goes on over the next, whole.
func TestSVGWrapsLongNotes(t *testing.T) {
	s, events := demoLike()
	events[2].Note = strings.Repeat("the ZooKeeper server that speaker-3 talks to ", 4)
	p := draw(t, s.timeline(t), events)
	notes := p.class("note")
	var words []string
	for _, n := range notes {
		if len([]rune(n.Text)) > 118 {
			t.Errorf("note line of %d characters, past the figure's edge: %q", len([]rune(n.Text)), n.Text)
		}
		words = append(words, strings.Fields(n.Text)...)
	}
	if want := strings.Join(strings.Fields(events[2].Note), " "); !strings.Contains(strings.Join(words, " "), want) {
		t.Errorf("notes %q lack the whole note %q", words, want)
	}
	if len(notes) < 5 {
		t.Errorf("%d note lines, want the long one over two or more", len(notes))
	}
}

// Every writer has a colour of its own, however many there are: a soak
// restarts its speakers under new names, and a palette that came round
// again would draw two writers alike.
func TestTwelveWritersTwelveColours(t *testing.T) {
	s := newScript()
	for i := range 12 {
		s.speak(fmt.Sprintf("w%d", i), int64(100+i), time.Duration(i)*3*time.Second, 2, time.Second)
	}
	p := draw(t, s.timeline(t), nil)
	fills := map[string]bool{}
	for _, b := range p.class("bar") {
		fills[b.attr("fill")] = true
	}
	if len(fills) != 12 {
		t.Fatalf("12 writers drawn in %d colours, want one each: %v", len(fills), fills)
	}
}

// A gap's hatching lies under the bars and the epoch labels, never over
// them: a term of one line has a bar 3 px wide that starts where the gap
// after it starts, and an epoch label may reach into the next gap. In SVG
// what comes later in the file is drawn on top.
func TestGapsAreDrawnUnderBarsAndLabels(t *testing.T) {
	s := newScript().
		speak("a", 100, 0, 5, time.Second).
		speak("b", 200, 7*time.Second, 1, time.Second). // one line
		speak("c", 300, 10*time.Second, 5, time.Second)
	p := draw(t, s.timeline(t), nil)
	lastGap := strings.LastIndex(p.src, `class="gap"`)
	for _, c := range []string{`class="bar"`, `class="epoch"`} {
		if first := strings.Index(p.src, c); lastGap < 0 || first < lastGap {
			t.Errorf("%s comes at %d, before the last gap at %d: the hatching covers it", c, first, lastGap)
		}
	}
}
