package chaos

import (
	"fmt"
	"strings"
)

// Words are a recipe's own names for what its soak reports. A process
// with no leader, or a value with no handover, reported in an election's
// words would make a student look for what is not there ("terms" that
// merely count the operator's lines), so each recipe says who its faults
// hit, what its lines are and what the fault table measures, in the words
// of its chapter.
type Words struct {
	// Lead is the process whose faults the table measures, as the
	// progress lines and the fault log mark it ("leader"); "" when the
	// recipe has none: its processes stand side by side.
	Lead string
	// Columns head the fault table after "fault" and "n"; Key explains
	// them, a line each; Counts are the counts under the columns before
	// the times.
	Columns, Key []string
	Counts       func(Handover) []int
	// DeleteKind is the recipe's name for DeleteLeader: what the
	// operator's delete of one znode takes away.
	DeleteKind string
	// Silence begins a stall's line ("silence"), and Bound says the
	// stall's bound.
	Silence, Bound string
	// Green says what a green bar on a lane shows; Wrote names one in
	// its title.
	Green, Wrote string
	// Checker says what the checker's lane shows.
	Checker string
	// Overlaps names two writers at once.
	Overlaps string
}

// ElectionWords are an election's: a leader, its handovers and terms.
// They are the words of a recipe that says none of its own.
var ElectionWords = Words{
	Lead:    "leader",
	Columns: []string{"handovers", "min", "median", "max", "no line after"},
	Counts:  func(h Handover) []int { return []int{h.N} },
	Key: []string{"(n: faults injected; handovers: those that hit the leader and were followed by a line,",
		" with min/median/max of the time from the fault to the next line by anyone;",
		" no line after: those that hit the leader with no line after them before the end)"},
	DeleteKind: "delete-leader",
	Silence:    "silence", Bound: "session + tick + interval + slack after the silence began or the last fault healed",
	Green: "a speaker writing", Wrote: "wrote",
	Checker: "overlaps (red: unexplained) and stalls", Overlaps: "overlaps",
}

// kindName is the kind as this recipe calls it.
func (w Words) kindName(k Kind) string {
	if k == DeleteLeader {
		return w.DeleteKind
	}
	return k.String()
}

// row is a kind's row of the fault table, after its name and n.
func (w Words) row(h Handover) []string {
	var out []string
	for _, n := range w.Counts(h) {
		out = append(out, fmt.Sprint(n))
	}
	return append(out, ms(h.N, h.Min), ms(h.N, h.Median), ms(h.N, h.Max), fmt.Sprint(h.NoLine))
}

// OnTheSubject counts the faults on what the table measures (Words.Counts):
// the process that leads, or the one a fault's subject belongs to.
func OnTheSubject(h Handover) []int { return []int{h.On} }

// marked is who a fault hit, as the progress lines and the summary say
// it: "s2 (the leader)".
func (w Words) marked(f Fault) string {
	if f.Leader && w.Lead != "" {
		return f.Target + " (the " + w.Lead + ")"
	}
	return f.Target
}

// aliases are the recipes' names for DeleteLeader, which ParseKind reads.
func aliases() map[string]Kind {
	out := map[string]Kind{ElectionWords.DeleteKind: DeleteLeader}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, r := range registry.recipes {
		if r.Words.DeleteKind != "" {
			out[r.Words.DeleteKind] = DeleteLeader
		}
	}
	return out
}

// summaryLine says what the soak's processes did, in the recipe's words.
func (r Report) summaryLine() string {
	if r.Summary != "" {
		return r.Summary
	}
	return fmt.Sprintf("lines %d, writers %d (%s), terms %d", r.Lines, len(r.Writers), strings.Join(r.Writers, ", "), r.Terms)
}
