package chaos

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// clock is how the summary prints a moment: in UTC, as the out file's
// lines are written, so a time can be looked up there.
const clock = "15:04:05.000"

// Write prints the report as plain text for a student, in the words of
// the recipe the soak ran: what the faults cost, then each class of
// problem with every instance on a line of its own, and last a line that
// reads PASS or FAIL with what failed.
func (r Report) Write(w io.Writer) {
	rc := recipeNamed(r.Recipe)
	words := rc.Words
	if r.Cmd != "" {
		fmt.Fprintf(w, "program under test: %s\n", r.Cmd)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\tn\t"+strings.Join(words.Columns, "\t"))
	for _, k := range r.Kinds {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", words.kindName(k.Kind), k.N, strings.Join(words.row(k.Handover), "\t"))
	}
	tw.Flush()
	for _, l := range words.Key {
		fmt.Fprintln(w, l)
	}
	if note := blindNote(r.Blind); note != "" {
		fmt.Fprintln(w, note)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, r.summaryLine())
	r.writeLineChecks(w, rc.Checker != nil)
	if c := rc.Checker; c != nil {
		for _, s := range r.Own {
			writeFindings(w, s.What, s.Found)
		}
		fmt.Fprintln(w, c.NotLooked)
	} else {
		r.writeOverlaps(w, words)
	}
	fmt.Fprintf(w, "stalls: %s\n", count(len(r.Stalls)))
	if len(r.Stalls) > 0 {
		fmt.Fprintf(w, "  (the bound: %s)\n", words.Bound)
	}
	for _, s := range r.Stalls {
		fmt.Fprintf(w, "  %s %s to %s, %s past the bound; faults around it: %s\n",
			words.Silence, at(s.From), at(s.To), s.Over.Round(time.Millisecond), faultList(words, s.Faults))
	}
	switch {
	case r.Blind != "":
		fmt.Fprintln(w, "leaks: not looked for (the soak cannot find the program's znodes)")
	case rc.NoLeaks && rc.Checker != nil:
		fmt.Fprintln(w, rc.Checker.NoLeaks)
	default:
		fmt.Fprintf(w, "leaks: %s\n", count(len(r.Leaks)))
	}
	for _, l := range r.Leaks {
		fmt.Fprintf(w, "  %s is still in ZooKeeper after every process exited\n", l)
	}
	fmt.Fprintf(w, "bad exits: %s\n", count(len(r.BadExits)))
	for _, e := range r.BadExits {
		fmt.Fprintf(w, "  %s %s\n", e.Name, e.describe())
	}

	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "FAIL: %s\n", strings.Join(f, ", "))
		return
	}
	fmt.Fprintln(w, "PASS")
}

// writeLineChecks prints the checks of the out file's own lines. An
// election's processes write them, so a crash can tear one, and their
// epochs are the fence's. A recipe with a checker of its own has lines
// that are the soak's record of what it read (record): a problem there
// is the soak's, printed only when there is one, and they carry no epoch.
func (r Report) writeLineChecks(w io.Writer, record bool) {
	if record {
		if len(r.TornLines) > 0 {
			writeFindings(w, "torn lines", r.TornLines)
		}
		if len(r.CounterJumps) > 0 {
			writeFindings(w, "counter jumps", r.CounterJumps)
		}
		return
	}
	writeFindings(w, "torn lines", r.TornLines)
	writeFindings(w, "counter jumps", r.CounterJumps)
	if r.Fence {
		writeFindings(w, "epoch drops", r.EpochDrops)
	} else {
		fmt.Fprintln(w, "epoch drops: not checked (no --fence)")
	}
}

// writeOverlaps lists the overlaps, the explained ones with the window
// and faults that explain them.
func (r Report) writeOverlaps(w io.Writer, words Words) {
	bad := r.unexplained()
	fmt.Fprintf(w, "%s: %d explained, %d unexplained\n", words.Overlaps, len(r.Overlaps)-bad, bad)
	for _, o := range r.Overlaps {
		span := fmt.Sprintf("%s and %s both wrote from %s to %s", o.A, o.B, at(o.From), at(o.To))
		if o.Explained() {
			fmt.Fprintf(w, "  explained: %s: %s, by %s\n", span, o.Window, faultList(words, o.Faults))
		} else {
			fmt.Fprintf(w, "  UNEXPLAINED: %s\n", span)
		}
	}
}

// writeFindings prints a heading with the count and one line per finding.
func writeFindings(w io.Writer, what string, found []Finding) {
	fmt.Fprintf(w, "%s: %s\n", what, count(len(found)))
	for _, f := range found {
		switch {
		case f.Line == 0 && f.Time.IsZero(): // a finding of the end state
			fmt.Fprintf(w, "  %s\n", f.Detail)
		case f.Line == 0: // a reading, not a line of out.txt
			fmt.Fprintf(w, "  at %s: %s\n", at(f.Time), f.Detail)
		case f.Time.IsZero(): // a torn line
			fmt.Fprintf(w, "  line %d: %s\n", f.Line, f.Detail)
		default:
			fmt.Fprintf(w, "  line %d at %s: %s\n", f.Line, at(f.Time), f.Detail)
		}
	}
}

// faultList names faults briefly, in the recipe's words: kind, target,
// when (one moment for an instant fault), and whether it hit the leader
// (as the recipe calls it).
func faultList(words Words, faults []Fault) string {
	if len(faults) == 0 {
		return "none"
	}
	parts := make([]string, len(faults))
	for i, f := range faults {
		parts[i] = fmt.Sprintf("%s %s %s-%s", words.kindName(f.Kind), f.Target, at(f.Start), at(f.End))
		if f.End.Equal(f.Start) { // an instant fault: a reset, a delete
			parts[i] = fmt.Sprintf("%s %s %s", words.kindName(f.Kind), f.Target, at(f.Start))
		}
		if f.Leader && words.Lead != "" {
			parts[i] += " (" + words.Lead + ")"
		}
	}
	return strings.Join(parts, "; ")
}

func at(t time.Time) string { return t.UTC().Format(clock) }

// Clock prints a moment as the summary does: in UTC, to the millisecond.
func Clock(t time.Time) string { return at(t) }

// ms prints a duration rounded to milliseconds, "-" when nothing was
// measured.
func ms(n int, d time.Duration) string {
	if n == 0 {
		return "-"
	}
	return d.Round(time.Millisecond).String()
}

// count prints a number of problems, "none" for zero so a clean report
// reads as one.
func count(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}
