package chaos

import (
	"slices"
	"sort"
	"time"
)

// KindStats is what the faults of one kind did in a soak.
type KindStats struct {
	Kind Kind
	// N is how many faults of this kind the soak injected.
	N int
	// Handover is what the recipe's table measures after the faults of
	// this kind: for a speaker, how long the file went without a line
	// after those that hit the leader.
	Handover Handover
}

// Handover sums up, over the faults that hit what the recipe's table
// measures (a leader, or what its Checker.Measure says), the time from a
// fault's start to what the recipe waits for after it: for an election,
// the next line by any writer (whether the old leader came back or a new
// one took over).
type Handover struct {
	// On is the number of faults that hit what the table measures.
	On int
	// LeftOut, for a recipe that counts them (Checker.LeftOut), is the
	// number of faults after which what they hit was left out; only those
	// are measured.
	LeftOut int
	// N is the number of those followed by what the recipe waits for
	// before End.
	N int
	// Min, Median and Max are over those N, zero when N is 0. Median is
	// the lower median, so it is always a time that was measured.
	Min, Median, Max time.Duration
	// NoLine counts the faults measured after which it did not come
	// before End: the soak stopped first, so nothing was measured. A
	// stall, if it was one, is reported as such.
	NoLine int
}

// Outcome is what followed one fault, as the recipe's table measures it.
type Outcome struct {
	On   bool // the fault hit what the table measures
	Left bool // the fault is measured: always, but for some recipes only when what it hit was left out
	Came bool // what the recipe waits for came before End
	Took time.Duration
}

// kindStats counts the faults by kind and measures what followed each,
// as the recipe's table does (measureOf).
func kindStats(in Input, lines []Line) []KindStats {
	out := make([]KindStats, numKinds)
	took := make([][]time.Duration, numKinds)
	for i, k := range Kinds() {
		out[i].Kind = k
	}
	measure, counted := measureOf(in, lines)
	for _, f := range in.Faults {
		if f.Kind >= numKinds {
			continue // a kind this version does not know has no row
		}
		s := &out[f.Kind]
		s.N++
		o := measure(f)
		if !o.On {
			continue
		}
		s.Handover.On++
		if o.Left && counted {
			s.Handover.LeftOut++
		}
		switch {
		case o.Left && o.Came:
			took[f.Kind] = append(took[f.Kind], o.Took)
		case o.Left:
			s.Handover.NoLine++
		}
	}
	for i := range out {
		h := sumUp(took[i], out[i].Handover.NoLine)
		h.On, h.LeftOut = out[i].Handover.On, out[i].Handover.LeftOut
		out[i].Handover = h
	}
	return out
}

// measureOf returns what the recipe's table measures after a fault, and
// whether the faults measured are counted (Handover.LeftOut): the
// recipe's own measure, or for an election the time from a fault on the
// leader to the next line by anyone.
func measureOf(in Input, lines []Line) (func(Fault) Outcome, bool) {
	if c := recipeNamed(in.Recipe).Checker; c != nil && c.Measure != nil {
		return c.Measure(in, lines), c.LeftOut
	}
	times := make([]time.Time, len(lines))
	for i, l := range lines {
		times[i] = l.Time
	}
	slices.SortFunc(times, time.Time.Compare)
	return func(f Fault) Outcome {
		t, ok := LineAfter(times, f.Start, in.End)
		return Outcome{On: f.Leader, Left: true, Came: ok, Took: t.Sub(f.Start)}
	}, false
}

// LineAfter finds the first of the sorted times after start, if it is
// not after end.
func LineAfter(times []time.Time, start, end time.Time) (time.Time, bool) {
	i := sort.Search(len(times), func(i int) bool { return times[i].After(start) })
	if i == len(times) || times[i].After(end) {
		return time.Time{}, false
	}
	return times[i], true
}

// sumUp makes a Handover of the measured times.
func sumUp(took []time.Duration, noLine int) Handover {
	h := Handover{N: len(took), NoLine: noLine}
	if len(took) == 0 {
		return h
	}
	slices.Sort(took)
	h.Min, h.Median, h.Max = took[0], took[(len(took)-1)/2], took[len(took)-1]
	return h
}
