package chaos

import (
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// t0 is when every synthetic soak begins.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// ts is the moment d into the soak.
func ts(d time.Duration) time.Time { return t0.Add(d) }

const step = 100 * time.Millisecond // the speakers' interval in every test

// entry is a line of a synthetic out file: a speaker's line, or raw text
// (a torn line) placed at time t.
type entry struct {
	t    time.Time
	line speaker.Line
	raw  string
}

// outFile builds an out file as speakers appending to one file leave it:
// lines in order of their times.
type outFile struct{ entries []entry }

// speak appends n lines by name every step from offset, counting from
// counter, with epoch (0 for none).
func (o *outFile) speak(name string, counter uint64, epoch int64, offset time.Duration, n int) *outFile {
	for i := range n {
		l := speaker.Line{Time: ts(offset + time.Duration(i)*step), Name: name, Counter: counter + uint64(i), Epoch: epoch}
		o.entries = append(o.entries, entry{t: l.Time, line: l})
	}
	return o
}

// tear places raw text at offset: a line cut short by a crash.
func (o *outFile) tear(offset time.Duration, raw string) *outFile {
	o.entries = append(o.entries, entry{t: ts(offset), raw: raw})
	return o
}

func (o *outFile) bytes() []byte {
	es := slices.Clone(o.entries)
	slices.SortStableFunc(es, func(a, b entry) int { return a.t.Compare(b.t) })
	var b []byte
	for _, e := range es {
		if e.raw != "" {
			b = append(append(b, e.raw...), '\n')
			continue
		}
		b = e.line.Append(b)
	}
	return b
}

// input is a soak over o from t0 to end with the tests' bounds: session
// 4 s, tick 500 ms, interval 100 ms (a stall bound of 4.6 s), at-most-one
// with the fence.
func input(o *outFile, end time.Duration, faults ...Fault) Input {
	return Input{Out: o.bytes(), Faults: faults, Session: 4 * time.Second, Tick: 500 * time.Millisecond, Interval: step,
		Fence: true, Policy: atMostOne, Start: t0, End: ts(end)}
}

func fault(k Kind, target string, start, end time.Duration, leader bool) Fault {
	return Fault{Kind: k, Target: target, Start: ts(start), End: ts(end), Leader: leader}
}

func check(t *testing.T, in Input) Report {
	t.Helper()
	r, err := Check(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// failures compares what the report says failed.
func failures(t *testing.T, r Report, want ...string) {
	t.Helper()
	if got := r.Failures(); !slices.Equal(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
	if r.Pass() != (len(want) == 0) {
		t.Errorf("Pass() = %v with failures %q", r.Pass(), want)
	}
}

func written(r Report) string {
	var b strings.Builder
	r.Write(&b)
	return b.String()
}

// hasRow reports whether text has a line whose fields are row's.
func hasRow(text, row string) bool {
	for _, l := range strings.Split(text, "\n") {
		if slices.Equal(strings.Fields(l), strings.Fields(row)) {
			return true
		}
	}
	return false
}
