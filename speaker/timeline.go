package speaker

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// Term is a run of consecutive lines by one writer in the out file: one
// stretch of leadership as the file shows it.
type Term struct {
	Name         string
	First, Last  time.Time
	Lines        int
	FromCounter  uint64
	ToCounter    uint64
	GapBefore    time.Duration // from the previous term's last line: the failover time
	HasGapBefore bool
}

// AnomalyKind says what is wrong in an Anomaly.
type AnomalyKind uint8

const (
	// AnomalyTornLine is a line that does not parse: cut by a crash, or two
	// writes glued together.
	AnomalyTornLine AnomalyKind = iota
	// AnomalyCounterJump is a writer's counter that did not go up by exactly 1:
	// a lost or repeated line.
	AnomalyCounterJump
	// AnomalyOverlap is two writers speaking steadily at the same time: two
	// leaders at once.
	AnomalyOverlap
)

// String names the kind as the timeline report prints it.
func (k AnomalyKind) String() string {
	switch k {
	case AnomalyTornLine:
		return "torn line"
	case AnomalyCounterJump:
		return "counter jump"
	case AnomalyOverlap:
		return "overlap"
	default:
		return "unknown"
	}
}

// Anomaly is something in the out file that a correct election never
// produces.
type Anomaly struct {
	// Line is the line number it was found at (1-based), 0 when it spans many.
	Line int
	// Kind says what is wrong.
	Kind AnomalyKind
	// Detail says what exactly, in words.
	Detail string
	// Time is when: the line's time, or when an overlap began. It is zero
	// for a torn line, whose time cannot be read; a chart marks the others.
	Time time.Time
	// Name is the writer of a counter jump's line, empty otherwise.
	Name string
}

// Timeline is an out file read as a story: who spoke when.
type Timeline struct {
	Terms     []Term
	Anomalies []Anomaly
	Writers   []string // in order of first appearance
	lines     map[string][]stamp
	// cadence holds each writer's gaps between its consecutive lines of
	// one process run while no other writer held the floor (wrote two
	// lines in a row): its steady spacing, free of the gaps between its
	// terms, and found even when writers take turns line by line.
	cadence map[string][]time.Duration
}

// spacing finds each writer's cadence as the lines come.
type spacing struct {
	last    map[string]stamp
	spanned map[string]bool // another writer held the floor since its last line
}

// note records line l of a writer in run, continuing (the line before it
// in the file is the writer's own, same run), and returns the gap since
// its last line if that gap is its spacing.
func (sp *spacing) note(name string, t time.Time, run int, continuing bool) (time.Duration, bool) {
	if continuing {
		for other := range sp.last {
			if other != name {
				sp.spanned[other] = true
			}
		}
	}
	prev, seen := sp.last[name]
	gap, ok := t.Sub(prev.t), seen && prev.term.run == run && !sp.spanned[name]
	sp.last[name], sp.spanned[name] = stamp{t: t, term: termKey{run: run}}, false
	return gap, ok
}

// stamp is what the stretches need of a line.
type stamp struct {
	t time.Time
	// term changes when the writer's epoch changes or it restarts: a new
	// leadership, even if it comes back quickly.
	term termKey
}

// termKey tells one leadership of a writer from another: its process run
// (the times its counter started from 1) and its epoch.
type termKey struct {
	run   int
	epoch int64
}

// ReadTimeline reads an out file. Lines it cannot parse become "torn line"
// anomalies; it fails only when r does.
func ReadTimeline(r io.Reader) (*Timeline, error) {
	tl := &Timeline{lines: map[string][]stamp{}, cadence: map[string][]time.Duration{}}
	last := map[string]uint64{}
	runs := map[string]int{} // how many times each name started from 1
	sp := spacing{last: map[string]stamp{}, spanned: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l, err := ParseLine(sc.Text())
		if err != nil {
			tl.Anomalies = append(tl.Anomalies, Anomaly{Line: n, Kind: AnomalyTornLine, Detail: fmt.Sprintf("%q", sc.Text())})
			continue
		}
		if _, seen := last[l.Name]; !seen {
			tl.Writers = append(tl.Writers, l.Name)
		}
		// A counter back at 1 is a new process under the same name (a
		// speaker restarted with the same --name), not a lost line.
		restart := l.Counter == 1
		if restart {
			runs[l.Name]++
		} else if want := last[l.Name] + 1; l.Counter != want && last[l.Name] == 0 {
			tl.Anomalies = append(tl.Anomalies, Anomaly{Line: n, Kind: AnomalyCounterJump, Time: l.Time, Name: l.Name,
				Detail: fmt.Sprintf("%s's first line has counter %d, not 1: lines before it are missing", l.Name, l.Counter)})
		} else if l.Counter != want {
			tl.Anomalies = append(tl.Anomalies, Anomaly{Line: n, Kind: AnomalyCounterJump, Time: l.Time, Name: l.Name,
				Detail: fmt.Sprintf("%s wrote %d after %d", l.Name, l.Counter, last[l.Name])})
		}
		last[l.Name] = l.Counter
		tl.lines[l.Name] = append(tl.lines[l.Name], stamp{t: l.Time, term: termKey{run: runs[l.Name], epoch: l.Epoch}})
		k := len(tl.Terms) - 1
		continuing := k >= 0 && tl.Terms[k].Name == l.Name && !restart
		if gap, ok := sp.note(l.Name, l.Time, runs[l.Name], continuing); ok {
			tl.cadence[l.Name] = append(tl.cadence[l.Name], gap)
		}
		if continuing {
			t := &tl.Terms[k]
			t.Last, t.Lines, t.ToCounter = l.Time, t.Lines+1, l.Counter
			continue
		}
		t := Term{Name: l.Name, First: l.Time, Last: l.Time, Lines: 1, FromCounter: l.Counter, ToCounter: l.Counter}
		if k >= 0 {
			t.GapBefore, t.HasGapBefore = l.Time.Sub(tl.Terms[k].Last), true
		}
		tl.Terms = append(tl.Terms, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	tl.findOverlaps()
	return tl, nil
}

// Lines is the number of well-formed lines read.
func (tl *Timeline) Lines() int {
	n := 0
	for _, t := range tl.Terms {
		n += t.Lines
	}
	return n
}
