// Package timeline prints what speaker.ReadTimeline finds in an out
// file, for people: a table of terms and gaps, the anomalies, a text chart
// and an SVG picture. It is the printing half of `speaker timeline`.
package timeline

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"zkspeaker/speaker"
)

// Write prints the story of an out file: its terms with the gap before
// each, the anomalies a correct election never writes, the events done to
// the election (from an events file, or none) with what followed each,
// and a text chart.
func Write(w io.Writer, name string, tl *speaker.Timeline, events []Event, width int) {
	fmt.Fprintf(w, "%s: %s, %s, %s, %s\n", name, Count(tl.Lines(), "line"), Count(len(tl.Writers), "writer"),
		Count(len(tl.Terms), "term"), Count(len(tl.Anomalies), "anomaly"))
	if len(tl.Terms) == 0 {
		writeAnomalies(w, tl) // a file of garbage: say what is wrong with it
		return
	}
	fmt.Fprintf(w, "\nterms (UTC, %s)\n", tl.Terms[0].First.UTC().Format(time.DateOnly))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TERM\tNAME\tFIRST\tLAST\tLINES\tCOUNTERS\tGAP BEFORE\t")
	for i, t := range tl.Terms {
		gap := "-"
		if t.HasGapBefore {
			gap = duration(t.GapBefore)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d-%d\t%s\t\n", i+1, t.Name, clock(t.First), clock(t.Last), t.Lines, t.FromCounter, t.ToCounter, gap)
	}
	_ = tw.Flush()
	writeAnomalies(w, tl)
	writeEvents(w, tl, events)
	fmt.Fprintln(w)
	WriteChart(w, tl, events, width)
}

// writeEvents lists the events, numbered as the chart marks them.
func writeEvents(w io.Writer, tl *speaker.Timeline, events []Event) {
	if len(events) == 0 {
		return
	}
	fmt.Fprintln(w, "\nevents")
	st := tl.Stretches()
	for i, e := range events {
		note := ""
		if e.Note != "" {
			note = " (" + e.Note + ")"
		}
		fmt.Fprintf(w, "  %d  %s  %s%s: %s\n", i+1, clock(e.Time), e.Label(), note, outcome(st, e))
	}
}

// writeAnomalies lists what a correct election never writes.
func writeAnomalies(w io.Writer, tl *speaker.Timeline) {
	if len(tl.Anomalies) == 0 {
		return
	}
	fmt.Fprintln(w, "\nanomalies")
	for _, a := range tl.Anomalies {
		where := ""
		if a.Line > 0 {
			where = fmt.Sprintf("line %d: ", a.Line)
		}
		fmt.Fprintf(w, "  %s%s: %s\n", where, a.Kind, a.Detail)
	}
}

// Count says "1 line" or "3 lines"; anomaly becomes anomalies.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
