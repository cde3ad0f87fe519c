package chaos

import "time"

// Stall is a silence longer than the election allows: nobody wrote, though
// every fault before it had healed long enough ago for a leader to be
// elected and speak.
type Stall struct {
	// From and To are the silence: the line (or Start) before it and the
	// line (or End) after it.
	From, To time.Time
	// Over is how far the silence went past its bound.
	Over time.Duration
	// Faults are the faults around it, in log order: those that overlap
	// the silence or ended within a bound before it, the likely culprits.
	Faults []Fault
}

// findStalls looks at every silence between Start and End: from Start to
// the first line, between lines, from the last line to End. times are the
// well-formed lines' times, sorted.
//
// The bound is what a correct election needs once the last fault so far
// has healed: a session for a dead leader's session to expire, a tick for
// the servers to notice, an interval for the successor's first line, and
// the runner's slack. A silence is a stall when it lasts past that bound,
// counted from whichever is later: the silence's start or the latest end
// of a fault that began before the silence ended.
func findStalls(in Input, times []time.Time) []Stall {
	bound := in.Session + in.Tick + in.Interval + in.Slack
	if in.Bound > 0 {
		bound = in.Bound
	}
	edges := []time.Time{in.Start}
	for _, t := range times {
		if t.After(in.Start) && !t.After(in.End) {
			edges = append(edges, t)
		}
	}
	edges = append(edges, in.End)
	var out []Stall
	for i := 1; i < len(edges); i++ {
		if s, ok := stallIn(in.Faults, edges[i-1], edges[i], bound); ok {
			out = append(out, s)
		}
	}
	return out
}

// stallIn judges the silence [a, b] against bound.
func stallIn(faults []Fault, a, b time.Time, bound time.Duration) (Stall, bool) {
	from := a
	for _, f := range faults {
		if !f.Start.After(b) && f.End.After(from) {
			from = f.End
		}
	}
	allowed := from.Add(bound)
	if !b.After(allowed) {
		return Stall{}, false
	}
	s := Stall{From: a, To: b, Over: b.Sub(allowed)}
	s.Faults = faultsWhere(faults, func(f Fault) bool {
		return !f.Start.After(b) && !f.End.Before(a.Add(-bound))
	})
	return s, true
}
