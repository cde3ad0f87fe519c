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
// measures (the speaker's leader, the lock's holder, the persisters'
// leader, a key, a member), the time from a fault's start to what the
// recipe waits for after it: the next line by any writer for an election
// (whether the old leader came back or a new one took over), the next
// value from the key's watcher, the first reading that lists the member
// again after the listing left it out.
type Handover struct {
	// On is the number of faults that hit what the table measures.
	On int
	// LeftOut, in a group soak, is the number of faults on a member after
	// which the listing left it out; only those are measured.
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

// outcome is what followed one fault, as the recipe's table measures it.
type outcome struct {
	on   bool // the fault hit what the table measures
	left bool // the fault is measured: always, but for a group only when the listing left the member out
	came bool // what the recipe waits for came before End
	took time.Duration
}

// kindStats counts the faults by kind and measures what followed each,
// as the recipe's table does (measureOf).
func kindStats(in Input, lines []numbered) []KindStats {
	out := make([]KindStats, numKinds)
	took := make([][]time.Duration, numKinds)
	for i, k := range Kinds() {
		out[i].Kind = k
	}
	measure := measureOf(in, lines)
	for _, f := range in.Faults {
		if f.Kind >= numKinds {
			continue // a kind this version does not know has no row
		}
		s := &out[f.Kind]
		s.N++
		o := measure(f)
		if !o.on {
			continue
		}
		s.Handover.On++
		if o.left && in.Group != nil {
			s.Handover.LeftOut++
		}
		switch {
		case o.left && o.came:
			took[f.Kind] = append(took[f.Kind], o.took)
		case o.left:
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

// measureOf returns what the recipe's table measures after a fault: for
// an election, a lock or the sequence, the time from a fault on the
// leader (the holder, the persisters' leader) to the next line by anyone;
// for a configuration, from a fault on a key to its watcher's next value;
// for a group, from a fault on a member that the listing then left out to
// the first reading that lists it again.
func measureOf(in Input, lines []numbered) func(Fault) outcome {
	switch {
	case in.Group != nil:
		return func(f Fault) outcome { return leftOut(in, f) }
	case in.Config != nil:
		byWatcher := map[string][]time.Time{}
		for _, l := range lines {
			byWatcher[l.Name] = append(byWatcher[l.Name], l.Time)
		}
		for _, ts := range byWatcher {
			slices.SortFunc(ts, time.Time.Compare)
		}
		return func(f Fault) outcome {
			key := keyHit(f)
			if key == "" {
				return outcome{}
			}
			t, ok := lineAfter(byWatcher["v"+key[1:]], f.Start, in.End)
			return outcome{on: true, left: true, came: ok, took: t.Sub(f.Start)}
		}
	}
	times := make([]time.Time, len(lines))
	for i, l := range lines {
		times[i] = l.Time
	}
	slices.SortFunc(times, time.Time.Compare)
	return func(f Fault) outcome {
		t, ok := lineAfter(times, f.Start, in.End)
		return outcome{on: f.Leader, left: true, came: ok, took: t.Sub(f.Start)}
	}
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
