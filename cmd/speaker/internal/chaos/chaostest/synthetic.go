// Package chaostest is what the tests of the chaos core and of each
// recipe's soak share: synthetic out files and checker inputs, the
// commands built once per test binary, soaks run and judged, and a
// picture read back.
package chaostest

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

// T0 is when every synthetic soak begins.
var T0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TS is the moment d into the soak.
func TS(d time.Duration) time.Time { return T0.Add(d) }

// Step is the speakers' interval in every synthetic soak.
const Step = 100 * time.Millisecond

// Entry is a line of a synthetic out file: a process's line, or raw text
// (a torn line) placed at time T.
type Entry struct {
	T    time.Time
	Line speaker.Line
	Raw  string
}

// OutFile builds an out file as processes appending to one file leave it:
// lines in order of their times.
type OutFile struct{ Entries []Entry }

// Speak appends n lines by name every Step from offset, counting from
// counter, with epoch (0 for none).
func (o *OutFile) Speak(name string, counter uint64, epoch int64, offset time.Duration, n int) *OutFile {
	for i := range n {
		l := speaker.Line{Time: TS(offset + time.Duration(i)*Step), Name: name, Counter: counter + uint64(i), Epoch: epoch}
		o.Entries = append(o.Entries, Entry{T: l.Time, Line: l})
	}
	return o
}

// Tear places raw text at offset: a line cut short by a crash.
func (o *OutFile) Tear(offset time.Duration, raw string) *OutFile {
	o.Entries = append(o.Entries, Entry{T: TS(offset), Raw: raw})
	return o
}

// Bytes is the file.
func (o *OutFile) Bytes() []byte {
	es := slices.Clone(o.Entries)
	slices.SortStableFunc(es, func(a, b Entry) int { return a.T.Compare(b.T) })
	var b []byte
	for _, e := range es {
		if e.Raw != "" {
			b = append(append(b, e.Raw...), '\n')
			continue
		}
		b = e.Line.Append(b)
	}
	return b
}

// Input is a soak over o from T0 to end with the tests' bounds: session
// 4 s, tick 500 ms, interval 100 ms (a stall bound of 4.6 s), at-most-one
// with the fence.
func Input(o *OutFile, end time.Duration, faults ...chaos.Fault) chaos.Input {
	return chaos.Input{Out: o.Bytes(), Faults: faults, Session: 4 * time.Second, Tick: 500 * time.Millisecond, Interval: Step,
		Fence: true, Policy: "at-most-one", Start: T0, End: TS(end)}
}

// Fault is a fault of kind k on target from start to end into the soak.
func Fault(k chaos.Kind, target string, start, end time.Duration, leader bool) chaos.Fault {
	return chaos.Fault{Kind: k, Target: target, Start: TS(start), End: TS(end), Leader: leader}
}

// Check is chaos.Check, which must not fail.
func Check(t *testing.T, in chaos.Input) chaos.Report {
	t.Helper()
	r, err := chaos.Check(in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Failures compares what the report says failed.
func Failures(t *testing.T, r chaos.Report, want ...string) {
	t.Helper()
	if got := r.Failures(); !slices.Equal(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
	if r.Pass() != (len(want) == 0) {
		t.Errorf("Pass() = %v with failures %q", r.Pass(), want)
	}
}

// Written is the report as the summary prints it.
func Written(r chaos.Report) string {
	var b strings.Builder
	r.Write(&b)
	return b.String()
}

// HasRow reports whether text has a line whose fields are row's.
func HasRow(text, row string) bool {
	for _, l := range strings.Split(text, "\n") {
		if slices.Equal(strings.Fields(l), strings.Fields(row)) {
			return true
		}
	}
	return false
}

// SpeaksItsWords checks that the report of in, a soak of the recipe in
// in.Recipe, is in the recipe's own words: it has every one of want, a
// row of its fault table for each of rows (by their fields), and none of
// the words never, which a soak of this recipe has no use for.
func SpeaksItsWords(t *testing.T, in chaos.Input, want, rows, never []string) {
	t.Helper()
	text := Written(Check(t, in))
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: no %q in the report:\n%s", in.Recipe, w, text)
		}
	}
	for _, row := range rows {
		if !HasRow(text, row) {
			t.Errorf("%s: no row %q in the report:\n%s", in.Recipe, row, text)
		}
	}
	for _, w := range never {
		if regexp.MustCompile(`(?i)\b` + w).MatchString(text) {
			t.Errorf("%s: the report says %q:\n%s", in.Recipe, w, text)
		}
	}
}
