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
	// Handover is how long the file went without a line after the
	// faults of this kind that hit the leader.
	Handover Handover
}

// Handover sums up, over the faults that hit the leader, the time from a
// fault's start to the next line by any writer: what the fault cost in
// silence, whether the old leader came back or a new one took over.
type Handover struct {
	// N is the number of leader faults followed by a line before End.
	N int
	// Min, Median and Max are over those N, zero when N is 0. Median is
	// the lower median, so it is always a time that was measured.
	Min, Median, Max time.Duration
	// NoLine counts the leader faults after which no line came before End:
	// the soak stopped before anyone spoke again, so nothing was measured.
	// A stall, if it was one, is reported as such.
	NoLine int
}

// kindStats counts the faults by kind and measures the handovers after
// the leader's. times are the well-formed lines' times, sorted.
func kindStats(in Input, times []time.Time) []KindStats {
	out := make([]KindStats, numKinds)
	took := make([][]time.Duration, numKinds)
	for i, k := range Kinds() {
		out[i].Kind = k
	}
	for _, f := range in.Faults {
		if f.Kind >= numKinds {
			continue // a kind this version does not know has no row
		}
		s := &out[f.Kind]
		s.N++
		if !f.Leader {
			continue
		}
		if t, ok := lineAfter(times, f.Start, in.End); ok {
			took[f.Kind] = append(took[f.Kind], t.Sub(f.Start))
		} else {
			s.Handover.NoLine++
		}
	}
	for i := range out {
		out[i].Handover = sumUp(took[i], out[i].Handover.NoLine)
	}
	return out
}

// lineAfter finds the first of the sorted times after start, if it is
// not after end.
func lineAfter(times []time.Time, start, end time.Time) (time.Time, bool) {
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
