package chaos

import (
	"bufio"
	"bytes"
	"fmt"
	"time"

	"zkspeaker/speaker"
)

// Finding is one bad line of the out file, told as the summary prints it.
type Finding struct {
	// Line is the line number in the out file, from 1.
	Line int
	// Time is the line's time, zero when it cannot be read (a torn line).
	Time time.Time
	// Detail says what is wrong, in words.
	Detail string
}

// Line is a well-formed line of the out file, with its line number.
type Line struct {
	speaker.Line
	// N is its line number in the out file, from 1.
	N int
}

// ReadLines is the out file's well-formed lines, as the checker reads
// them: for a recipe's summary, which is given the Input alone.
func ReadLines(out []byte) ([]Line, error) { return readLines(out) }

// readLines parses the out file as speaker.ReadTimeline does, with the
// same limits, so its line numbers are the timeline's; torn lines are
// skipped, as the timeline reports them.
func readLines(out []byte) ([]Line, error) {
	var lines []Line
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if l, err := speaker.ParseLine(sc.Text()); err == nil {
			lines = append(lines, Line{Line: l, N: n})
		}
	}
	return lines, sc.Err()
}

// anomalies turns the timeline's anomalies of one kind into findings.
func anomalies(tl *speaker.Timeline, kind speaker.AnomalyKind) []Finding {
	var out []Finding
	for _, a := range tl.Anomalies {
		if a.Kind == kind {
			out = append(out, Finding{Line: a.Line, Time: a.Time, Detail: a.Detail})
		}
	}
	return out
}

// epochDrops finds, in file order, every line whose epoch is lower than
// the highest written before it. Epochs are the czxids of the leaders'
// znodes, so they only grow from one leadership to the next; with --fence
// a speaker refuses to append below the file's epoch, and a drop means a
// stale leader's write got through. Lines without an epoch (0) carry no
// claim and are skipped.
func epochDrops(lines []Line) []Finding {
	var out []Finding
	var high Line // the line with the highest epoch so far
	for _, l := range lines {
		switch {
		case l.Epoch <= 0:
		case l.Epoch < high.Epoch:
			out = append(out, Finding{Line: l.N, Time: l.Time, Detail: fmt.Sprintf(
				"%s wrote epoch=%d after %s wrote epoch=%d at line %d", l.Name, l.Epoch, high.Name, high.Epoch, high.N)})
		case l.Epoch > high.Epoch:
			high = l
		}
	}
	return out
}
