package main_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// handMade writes an out file in which b overlaps a for 3 s, then c takes
// over after a gap of 2.5 s, a line is torn, and c's counter jumps.
func handMade(t *testing.T) string {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var b strings.Builder
	line := func(offset time.Duration, name string, n int) {
		fmt.Fprintf(&b, "%s %s %d\n", t0.Add(offset).Format(time.RFC3339Nano), name, n)
	}
	for i := 1; i <= 5; i++ {
		line(time.Duration(i)*time.Second, "a", i)
	}
	for i := 1; i <= 3; i++ { // a and b both speak, a second apart
		line(time.Duration(5+i)*time.Second, "b", i)
		line(time.Duration(5+i)*time.Second+500*time.Millisecond, "a", 5+i)
	}
	line(9*time.Second, "b", 4)
	b.WriteString("2026-11-22T10:00:10Z b 5 2026-11-22T1") // torn
	b.WriteString("\n")
	line(11500*time.Millisecond, "c", 1)
	line(12500*time.Millisecond, "c", 2)
	line(13500*time.Millisecond, "c", 4) // a line lost
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// handMadeEvents writes an events file for handMade: b killed at 10.2 s,
// after its last line; c speaks 1.3 s later.
func handMadeEvents(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "events.txt")
	text := "# what was done\n2026-11-22T10:00:10.2Z SIGKILL b the leader\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTimelineCommand(t *testing.T) {
	path := handMade(t)
	svg := filepath.Join(t.TempDir(), "chart.svg")
	got := run(t, "timeline", "--svg", svg, "--events", handMadeEvents(t), path)
	for _, want := range []string{
		"1  10:00:10.200  SIGKILL b (the leader): the next line came 1.3s later, by c",
		"15 lines, 3 writers, 9 terms, 3 anomalies",
		"counter jump: c wrote 4 after 2",
		"line 13: torn line",
		"overlap: a and b both wrote between 2026-11-22T10:00:06",
		"2.5s", // the gap before c
	} {
		if !strings.Contains(got, want) {
			t.Errorf("timeline output lacks %q:\n%s", want, got)
		}
	}
	// The chart: a row per writer, c's row starting after the others end.
	rowOf := map[string]string{}
	for _, l := range strings.Split(got, "\n") {
		if name, bar, ok := strings.Cut(l, " |"); ok {
			rowOf[strings.TrimSpace(name)] = bar
		}
	}
	if e := strings.Index(rowOf["events"], "1"); e <= strings.LastIndex(rowOf["b"], "#") || e >= strings.Index(rowOf["c"], "#") {
		t.Errorf("chart rows %q: want the event's 1 between b's end and c's start", rowOf)
	}
	delete(rowOf, "events")
	if len(rowOf) != 3 || strings.Index(rowOf["c"], "#") <= strings.LastIndex(rowOf["b"], "#") || strings.Index(rowOf["b"], "#") >= strings.LastIndex(rowOf["a"], "#") {
		t.Errorf("chart rows %q: want a, then b overlapping a's end, then c after both", rowOf)
	}

	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	var pic struct {
		XMLName xml.Name `xml:"svg"`
		Rects   []struct {
			Class string `xml:"class,attr"`
		} `xml:"rect"`
		Lines []struct {
			Class string `xml:"class,attr"`
		} `xml:"line"`
	}
	if err := xml.Unmarshal(data, &pic); err != nil {
		t.Fatalf("the SVG is not well-formed: %v", err)
	}
	classes := map[string]int{}
	for _, r := range pic.Rects {
		classes[r.Class]++
	}
	for _, l := range pic.Lines {
		classes[l.Class]++
	}
	// A bar per stretch: a, b and c each spoke steadily once (b's lines,
	// each between two of a's, are one stretch at b's own spacing).
	if classes["bar"] != 3 || classes["overlap"] != 1 || classes["event"] != 1 {
		t.Errorf("SVG has %d bars, %d overlaps, %d event lines: want a bar per stretch (3), one overlap, one event", classes["bar"], classes["overlap"], classes["event"])
	}
}

// A file with no line has no chart: none is drawn, and the report says so.
func TestTimelineNoLinesNoPicture(t *testing.T) {
	dir := t.TempDir()
	empty, svg := filepath.Join(dir, "out.txt"), filepath.Join(dir, "chart.svg")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got := run(t, "timeline", "--svg", svg, empty)
	if !strings.Contains(got, "no chart drawn in "+svg) {
		t.Errorf("timeline of an empty file says %q, want it to say no chart was drawn", got)
	}
	if _, err := os.Stat(svg); err == nil {
		t.Errorf("an empty out file left a picture in %s", svg)
	}
}

// Bad input: one line, exit 2, nothing written.
func TestTimelineBadInput(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "chart.svg")
	badEvents := filepath.Join(t.TempDir(), "events.txt")
	if err := os.WriteFile(badEvents, []byte("2026-11-22T10:00:10.2Z SIGKILL b\nat noon SIGTERM a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"timeline", filepath.Join(t.TempDir(), "missing.txt")},
		{"timeline", "--width", "3", handMade(t)},
		{"timeline", handMade(t), "--svg", svg},
		{"timeline", "--svg", "", handMade(t)},
		{"timeline", t.TempDir()},                                                          // a directory is no out file
		{"timeline", "--svg", filepath.Join(t.TempDir(), "missing", "x.svg"), handMade(t)}, // checked before the report
		{"timeline", "--events", filepath.Join(t.TempDir(), "missing.txt"), handMade(t)},
		{"timeline", "--events", "", handMade(t)},
		{"timeline", "--events", t.TempDir(), handMade(t)},
		{"timeline", "--svg", svg, "--events", badEvents, handMade(t)},
	} {
		p := zktest.Run(t, zktest.BuildSpeaker(t), args...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, err := p.Wait(ctx)
		cancel()
		if err != nil || code != 2 || strings.Count(strings.TrimSpace(p.Stderr()), "\n") != 0 || p.Stdout() != "" {
			t.Errorf("%v: exit %d (%v), stdout %q, stderr %q; want exit 2 and one line", args, code, err, p.Stdout(), p.Stderr())
		}
		if slices.Contains(args, "--events") && !strings.HasPrefix(p.Stderr(), "speaker: --events: ") {
			t.Errorf("%v: stderr %q, want it to name --events", args, p.Stderr())
		}
		if _, err := os.Stat(svg); err == nil {
			t.Errorf("%v wrote %s", args, svg)
		}
	}
}
