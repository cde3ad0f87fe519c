package speaker

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// Stretch is a span of time in which one writer wrote steadily.
type Stretch struct {
	Name        string
	First, Last time.Time
	// Epoch is the leader epoch on its lines, 0 when they carry none: a
	// stretch never spans two, as each epoch is a leadership of its own.
	Epoch int64
}

// Stretches joins each writer's lines into spans of steady writing: lines
// of one leadership (the same epoch, the same process) no further apart
// than 1.5 times the writer's usual spacing (the median gap between its
// consecutive lines within a term). Lines of other
// writers in between do not break a span, which is how two writers taking
// turns line by line show up as the overlap they are.
func (tl *Timeline) Stretches() []Stretch {
	var out []Stretch
	for _, name := range tl.Writers {
		stamps := tl.lines[name]
		limit := 3 * lowerMedian(tl.cadence[name]) / 2
		cur := Stretch{Name: name, First: stamps[0].t, Last: stamps[0].t, Epoch: stamps[0].term.epoch}
		for i, st := range stamps[1:] {
			if limit > 0 && st.t.Sub(cur.Last) <= limit && st.term == stamps[i].term {
				if st.t.After(cur.Last) { // a clock stepped back must not shrink it
					cur.Last = st.t
				}
				continue
			}
			out = append(out, cur)
			cur = Stretch{Name: name, First: st.t, Last: st.t, Epoch: st.term.epoch}
		}
		out = append(out, cur)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First.Before(out[j].First) })
	return out
}

// Overlap is a span of time in which two writers both spoke steadily: two
// leaders at once.
type Overlap struct {
	A, B     string
	From, To time.Time
}

// Overlaps finds every pair of stretches of different writers that share a
// moment.
func (tl *Timeline) Overlaps() []Overlap {
	var out []Overlap
	st := tl.Stretches()
	for i := range st {
		first := len(out) // the overlaps found with stretch i
		for j := i + 1; j < len(st) && !st[j].First.After(st[i].Last); j++ {
			if st[i].Name == st[j].Name {
				continue
			}
			o := Overlap{A: st[i].Name, B: st[j].Name, From: st[j].First, To: minTime(st[i].Last, st[j].Last)}
			// Another writer's lines scattered through one stretch are one
			// overlap, not one per line.
			if k := slices.IndexFunc(out[first:], func(p Overlap) bool { return p.B == o.B }); k >= 0 {
				p := &out[first+k]
				p.To = maxTime(p.To, o.To)
				continue
			}
			out = append(out, o)
		}
	}
	return out
}

func (tl *Timeline) findOverlaps() {
	for _, o := range tl.Overlaps() {
		tl.Anomalies = append(tl.Anomalies, Anomaly{Kind: AnomalyOverlap, Time: o.From, Detail: fmt.Sprintf(
			"%s and %s both wrote between %s and %s", o.A, o.B, o.From.Format(TimeLayout), o.To.Format(TimeLayout))})
	}
}

// lowerMedian is the lower median of gaps, 0 when there are none: then
// the writer never spoke twice in a row, and nothing is joined.
func lowerMedian(gaps []time.Duration) time.Duration {
	if len(gaps) == 0 {
		return 0
	}
	sorted := slices.Clone(gaps)
	slices.Sort(sorted)
	return sorted[(len(sorted)-1)/2]
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
