package seqid

import (
	"fmt"
	"strconv"
	"strings"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// The sequence-ID service's checks, on the ID lines the soak wrote
// (RecipeSeqid): no ID twice, ever; and after each total loss of
// ZooKeeper's data, every ID handed out once `seqid restore` is done above
// every ID handed out before the loss.

// idOf returns the ID an ID line carries, or false for any other line.
func idOf(l chaos.Line) (int64, bool) {
	for _, f := range l.Extra {
		if v, ok := strings.CutPrefix(f, "id="); ok {
			id, err := strconv.ParseInt(v, 10, 64)
			return id, err == nil
		}
	}
	return 0, false
}

// duplicateIDs finds every ID line whose ID an earlier line already had.
func duplicateIDs(lines []chaos.Line) []chaos.Finding {
	first := map[int64]chaos.Line{}
	var out []chaos.Finding
	for _, l := range lines {
		id, ok := idOf(l)
		if !ok {
			continue
		}
		if was, dup := first[id]; dup {
			out = append(out, chaos.Finding{Line: l.N, Time: l.Time,
				Detail: fmt.Sprintf("ID %d to %s, handed out already to %s on line %d", id, l.Name, was.Name, was.N)})
			continue
		}
		first[id] = l
	}
	return out
}

// idsBelowRestore finds, for each DataLoss fault, the IDs printed after its
// restore that are not above every ID printed before it ended: IDs from
// before the loss may still be printed during it, by a worker whose
// compare-and-set was answered just in time, so "before" runs to the
// fault's end.
func idsBelowRestore(lines []chaos.Line, faults []chaos.Fault) []chaos.Finding {
	var out []chaos.Finding
	for _, f := range faults {
		if f.Kind != chaos.DataLoss {
			continue
		}
		var highest int64 = -1
		for _, l := range lines {
			if id, ok := idOf(l); ok && !l.Time.After(f.End) {
				highest = max(highest, id)
			}
		}
		for _, l := range lines {
			if id, ok := idOf(l); ok && l.Time.After(f.End) && id <= highest {
				out = append(out, chaos.Finding{Line: l.N, Time: l.Time,
					Detail: fmt.Sprintf("ID %d to %s after the restore at %s, not above %d, handed out before the loss", id, l.Name, chaos.Clock(f.End), highest)})
			}
		}
	}
	return out
}
