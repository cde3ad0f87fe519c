package timeline

import (
	"fmt"
	"io"
	"strings"
	"time"

	"zkspeaker/speaker"
)

// span is the time a chart covers: from the first line or event to the
// last.
type span struct {
	from time.Time
	dur  time.Duration
}

func chartSpan(tl *speaker.Timeline, events []Event) span {
	first, last := tl.Terms[0].First, tl.Terms[0].Last
	widen := func(a, b time.Time) {
		if a.Before(first) {
			first = a
		}
		if b.After(last) {
			last = b
		}
	}
	for _, t := range tl.Terms {
		widen(t.First, t.Last)
	}
	for _, e := range events {
		widen(e.Time, e.Time)
	}
	return span{from: first, dur: last.Sub(first)}
}

// at maps t to one of n cells.
func (s span) at(t time.Time, n int) int {
	if s.dur <= 0 {
		return 0
	}
	i := int(float64(t.Sub(s.from)) / float64(s.dur) * float64(n))
	return min(max(i, 0), n-1)
}

// WriteChart draws one row per writer across time: '#' where it spoke.
// A handover shows as one row ending where the next begins; two rows with
// '#' in the same column are two writers at once, and nothing else is
// (see layout). When width columns are too few for that, the chart takes
// more and says so. A last row marks the events with their numbers in the
// list that Write prints.
func WriteChart(w io.Writer, tl *speaker.Timeline, events []Event, width int) {
	sp := chartSpan(tl, events)
	label := 0
	if len(events) > 0 {
		label = len(eventsRow)
	}
	for _, name := range tl.Writers {
		label = max(label, len(name))
	}
	stretches := tl.Stretches()
	cols, used := fit(stretches, sp, width)
	fmt.Fprintf(w, "chart: %s to %s, one column is %s", clock(sp.from), clock(sp.from.Add(sp.dur)),
		(sp.dur / time.Duration(used)).Round(time.Millisecond))
	if used > width {
		fmt.Fprintf(w, " (%d columns, not %d: fewer would put terms that follow each other in one column)", used, width)
	}
	fmt.Fprintln(w)
	for _, name := range tl.Writers {
		row := []byte(strings.Repeat(" ", used))
		for k, s := range stretches {
			if s.Name != name {
				continue
			}
			for i := cols[k].lo; i <= cols[k].hi; i++ {
				row[i] = '#'
			}
		}
		fmt.Fprintf(w, "%-*s |%s|\n", label, name, row)
	}
	if len(events) > 0 {
		fmt.Fprintf(w, "%-*s |%s|\n", label, eventsRow, eventMarks(events, sp, used))
	}
}

// eventsRow labels the chart's row of events.
const eventsRow = "events"

// eventMarks is the chart's row of events: each event's number in its
// column, '*' where two share one or the number has two digits.
func eventMarks(events []Event, sp span, width int) []byte {
	row := []byte(strings.Repeat(" ", width))
	for i, e := range events {
		c := sp.at(e.Time, width)
		if row[c] != ' ' || i >= 9 {
			row[c] = '*'
			continue
		}
		row[c] = byte('1' + i)
	}
	return row
}
