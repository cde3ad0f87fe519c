package timeline

import (
	"zkspeaker/speaker"
)

// cells are the columns a stretch takes in the text chart, lo to hi.
type cells struct{ lo, hi int }

// follows reports whether stretch a ends before stretch b starts, and they
// are by different writers: then no column may hold both, or the chart
// would show two leaders where there was one after the other.
func follows(a, b speaker.Stretch) bool {
	return a.Name != b.Name && a.Last.Before(b.First)
}

// layout gives each stretch (sorted by First, as Stretches returns them)
// its columns in a chart of width columns. Plain rounding puts a
// handover's last and first lines in one column whenever they are closer
// than a column's worth of time; here two writers share a column only when
// their stretches share a moment.
//
// The first pass goes forward in time: a stretch starts after the last
// column of every stretch that ended before it began, and keeps at least
// one column, so a run of short terms pushes the ones after it to the
// right. The second pass goes backward and pulls back whatever was pushed
// past the right edge. It reports false when the stretches need more
// columns than width.
func layout(st []speaker.Stretch, sp span, width int) ([]cells, bool) {
	c := make([]cells, len(st))
	for j, s := range st {
		lo, hi := sp.at(s.First, width), sp.at(s.Last, width)
		for i := range j {
			if follows(st[i], s) {
				lo = max(lo, c[i].hi+1)
			}
		}
		c[j] = cells{lo: lo, hi: max(hi, lo)}
	}
	for j := len(st) - 1; j >= 0; j-- {
		hi := min(c[j].hi, width-1)
		for k := j + 1; k < len(st); k++ {
			if follows(st[j], st[k]) {
				hi = min(hi, c[k].lo-1)
			}
		}
		if hi < 0 {
			return nil, false
		}
		c[j] = cells{lo: min(c[j].lo, hi), hi: hi}
	}
	return c, true
}

// fit lays the stretches out in width columns, or in as few more as they
// need, and returns the columns it used.
func fit(st []speaker.Stretch, sp span, width int) ([]cells, int) {
	// n columns always suffice for n stretches: one each, in order.
	for w := width; ; w++ {
		if c, ok := layout(st, sp, w); ok || w >= max(width, len(st)) {
			return c, w
		}
	}
}
