package timeline_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/timeline"
	"zkspeaker/speaker"
)

// chartRows draws the text chart and returns its rows by label.
func chartRows(t *testing.T, tl *speaker.Timeline, width int) (map[string]string, string) {
	t.Helper()
	var b strings.Builder
	timeline.WriteChart(&b, tl, nil, width)
	rows := map[string]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		if name, bar, ok := strings.Cut(l, " |"); ok {
			rows[strings.TrimSpace(name)] = strings.TrimSuffix(bar, "|")
		}
	}
	return rows, b.String()
}

// shared lists the columns in which two of the named rows both have '#'.
func shared(rows map[string]string, names ...string) []string {
	var out []string
	for i, a := range names {
		for _, b := range names[i+1:] {
			for c := 0; c < len(rows[a]) && c < len(rows[b]); c++ {
				if rows[a][c] == '#' && rows[b][c] == '#' {
					out = append(out, fmt.Sprintf("%s and %s in column %d", a, b, c))
				}
			}
		}
	}
	return out
}

// Defect 6: ordinary rounding put the last line of one term and the first
// of the next in one column, which reads as two leaders. Here three
// writers hand over within one column of a second: a's last line at 4.0 s,
// b's only line at 4.1 s, c's first at 4.3 s.
func TestChartHandoversShareNoColumn(t *testing.T) {
	tl := newScript().
		speak("a", 5, 0, 5, time.Second). // 0 s to 4 s
		speak("b", 7, 4100*time.Millisecond, 1, 0).
		speak("c", 9, 4300*time.Millisecond, 7, 950*time.Millisecond). // 4.3 s to 10 s
		timeline(t)
	if len(tl.Anomalies) != 0 {
		t.Fatalf("a clean file has anomalies: %+v", tl.Anomalies)
	}
	rows, chart := chartRows(t, tl, 10)
	if both := shared(rows, "a", "b", "c"); len(both) > 0 {
		t.Errorf("handovers that do not overlap share columns (%s):\n%s", strings.Join(both, ", "), chart)
	}
	for _, name := range []string{"a", "b", "c"} {
		if !strings.Contains(rows[name], "#") {
			t.Errorf("%s wrote, but its row is empty:\n%s", name, chart)
		}
	}
	if !(strings.LastIndex(rows["a"], "#") < strings.Index(rows["b"], "#") && strings.LastIndex(rows["b"], "#") < strings.Index(rows["c"], "#")) {
		t.Errorf("rows out of order, want a, then b, then c:\n%s", chart)
	}
}

// More one-line terms than columns: the chart grows rather than put two
// leaders in one column, and says so.
func TestChartWidensForManyShortTerms(t *testing.T) {
	s := newScript()
	for i := 0; i < 15; i++ {
		s.speak([]string{"a", "b"}[i%2], int64(i+1), time.Duration(i)*100*time.Millisecond, 1, 0)
	}
	rows, chart := chartRows(t, s.timeline(t), 10)
	if both := shared(rows, "a", "b"); len(both) > 0 {
		t.Errorf("terms that do not overlap share columns (%s):\n%s", strings.Join(both, ", "), chart)
	}
	if n := strings.Count(rows["a"]+rows["b"], "#"); n != 15 {
		t.Errorf("%d '#' for 15 one-line terms:\n%s", n, chart)
	}
	if !strings.Contains(chart, "15 columns") {
		t.Errorf("the chart does not say it grew to 15 columns:\n%s", chart)
	}
}

// Two writers that do speak at once still share columns: the rule must
// not hide an overlap.
func TestChartOverlapSharesColumns(t *testing.T) {
	s := newScript().speak("a", 0, 0, 10, time.Second)
	tl := s.speak("b", 0, 5500*time.Millisecond, 8, time.Second).timeline(t)
	rows, chart := chartRows(t, tl, 20)
	if both := shared(rows, "a", "b"); len(both) < 3 {
		t.Errorf("a and b both wrote from 5.5 s to 9 s, yet share %d columns:\n%s", len(both), chart)
	}
}
