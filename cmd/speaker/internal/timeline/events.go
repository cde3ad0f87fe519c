package timeline

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"zkspeaker/speaker"
)

// Event is something done to the election from outside at a known moment,
// such as a SIGTERM sent to a speaker or a ZooKeeper server killed. The
// out file cannot say why a gap happened; the events next to it can.
type Event struct {
	// Time is when it was done.
	Time time.Time
	// Kind says what was done, in one word: SIGTERM, SIGKILL, …
	Kind string
	// Target says to whom, in one word: speaker-1, zk-server-2, …
	Target string
	// Note is any words after the target, empty when there are none.
	Note string
}

// Label is the event as a chart names it: its kind and its target.
func (e Event) Label() string { return e.Kind + " " + e.Target }

// maxEvents bounds an events file: a chart of more would be unreadable,
// and a larger file is more likely a wrong FILE than a real record.
const maxEvents = 200

// ReadEvents reads an events file, one event a line:
//
//	<time> <kind> <target> [note ...]
//
// with the time in RFC 3339, as `date -u +%Y-%m-%dT%H:%M:%S.%NZ` prints
// it, and kind and target one word each. Blank lines and lines starting
// with # are skipped. Any other line that does not parse is an error that
// names its number. The events come back sorted by time.
func ReadEvents(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		e, err := parseEvent(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(out) == maxEvents {
			return nil, fmt.Errorf("line %d: more than %d events", n, maxEvents)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Event) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// parseEvent reads one line of an events file.
func parseEvent(text string) (Event, error) {
	f := strings.Fields(text)
	if len(f) < 3 {
		return Event{}, fmt.Errorf("%q: want <time> <kind> <target> [note]", text)
	}
	t, err := time.Parse(time.RFC3339Nano, f[0])
	if err != nil {
		return Event{}, fmt.Errorf("%q is not an RFC 3339 time such as 2026-11-22T10:00:05.25Z", f[0])
	}
	return Event{Time: t, Kind: f[1], Target: f[2], Note: strings.Join(f[3:], " ")}, nil
}

// outcome says what the out file shows after an event: who wrote next and
// how soon, or that the writer of that moment wrote on through it. st are
// the stretches of steady writing, sorted by their start.
func outcome(st []speaker.Stretch, e Event) string {
	before := ""
	for _, s := range st {
		if s.First.After(e.Time) {
			again := ""
			if s.Name == before {
				again = " again"
			}
			return fmt.Sprintf("the next line came %s later, by %s%s", duration(s.First.Sub(e.Time)), s.Name, again)
		}
		if !s.Last.Before(e.Time) {
			return s.Name + " wrote on through it"
		}
		before = s.Name
	}
	return "no line came after it"
}

// duration prints a gap as the report's table does, to the millisecond.
func duration(d time.Duration) string { return d.Round(time.Millisecond).String() }
