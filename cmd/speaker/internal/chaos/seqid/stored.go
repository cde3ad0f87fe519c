package seqid

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// The third invariant: an ID is handed out only below a reservation stored
// before it. A build that hands out IDs past the limit need not hand any
// out twice (the next raise stores a reservation above them), so only this
// check catches it. The persisters log every reservation they store, at
// debug level, before ZooKeeper may let an ID below it out.

// Reservation is one reservation a persister stored, when it said so.
type Reservation struct {
	At     time.Time
	Stored int64
}

// storedMark is the start of the messages a persister logs once it has
// stored a reservation, before it raises the limit or makes the sequence
// anew.
const storedMark = `msg="stored a reservation; now `

// readStored reads every reservation the persisters' logs in dir say they
// stored, in order of time.
func readStored(dir string, names []string) []Reservation {
	var out []Reservation
	chaos.EachLogLine(dir, names, func(_, line string) {
		if r, ok := parseStored(line); ok {
			out = append(out, r)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// parseStored reads a log line of slog's text form that says a
// reservation was stored.
func parseStored(line string) (Reservation, bool) {
	if !strings.Contains(line, storedMark) {
		return Reservation{}, false
	}
	at, okT := chaos.LogTime(line)
	v, _ := chaos.LogField(line, "stored")
	n, err := strconv.ParseInt(v, 10, 64)
	return Reservation{At: at, Stored: n}, okT && err == nil
}

// stored is the soak's record of reservations, nil when it has none.
func stored(in chaos.Input) []Reservation {
	rs, _ := in.Record.([]Reservation)
	return rs
}

// unreservedIDs finds every ID line whose ID is not below the highest
// reservation stored before the worker printed it. With no reservation
// recorded at all (a check of an out file alone) it finds nothing.
func unreservedIDs(lines []chaos.Line, rs []Reservation) []chaos.Finding {
	if len(rs) == 0 {
		return nil
	}
	// highestBy[i] is the highest of the first i+1 reservations.
	highestBy := make([]int64, len(rs))
	for i, r := range rs {
		highestBy[i] = r.Stored
		if i > 0 {
			highestBy[i] = max(highestBy[i], highestBy[i-1])
		}
	}
	var out []chaos.Finding
	for _, l := range lines {
		id, ok := idOf(l)
		if !ok {
			continue
		}
		n := sort.Search(len(rs), func(i int) bool { return !rs[i].At.Before(l.Time) })
		var highest int64 = -1
		if n > 0 {
			highest = highestBy[n-1]
		}
		if id >= highest {
			what := fmt.Sprintf("the highest reservation stored before it was %d", highest)
			if highest < 0 {
				what = "no reservation was stored before it"
			}
			out = append(out, chaos.Finding{Line: l.N, Time: l.Time,
				Detail: fmt.Sprintf("ID %d to %s, not below a stored reservation: %s", id, l.Name, what)})
		}
	}
	return out
}
