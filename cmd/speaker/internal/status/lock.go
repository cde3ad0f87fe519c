package status

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"zkspeaker/internal/fourletter"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
)

// WriteLine prints what stands at a sequential election's path: an
// election, or an exclusive lock's line of writers, as WriteSequential
// always did; or, when readers, a semaphore's leases or a revoke request
// stand there, the lock as WriteLock prints it. `speaker status --path P`
// is how a lock's line is listed, and a line of "n_" candidates alone
// would hide the readers, who hold.
func WriteLine(b *strings.Builder, v lock.View, s fourletter.Sightings) {
	if !isLock(v) {
		WriteSequential(b, seats(v.Path, v.Exists, v.Line), s)
		return
	}
	WriteLock(b, v, s)
}

// isLock reports whether v needs more than an election's table.
func isLock(v lock.View) bool {
	if v.Leases > 0 {
		return true
	}
	for _, c := range v.Line {
		if c.Mode() != "write" || c.Revoke {
			return true
		}
	}
	return false
}

// WriteLock prints a lock: a read-write lock's line, or a semaphore's
// leases and its gate. One row per contender in line order, with its
// mode, whom it waits for by the lock's rule (lock.Standing), what the
// servers say it watches, and its role: several hold at once, readers or
// leases. A revoke request is said under the table.
func WriteLock(b *strings.Builder, v lock.View, s fourletter.Sightings) {
	if !v.Exists {
		fmt.Fprintf(b, "  %s does not exist: nobody has asked for the lock yet\n", v.Path)
		return
	}
	line := v.Path
	if v.Leases > 0 {
		line = v.Path + "/leases"
		fmt.Fprintf(b, "  semaphore: %d of %d leases in use (%s records leases=%d)\n", v.Holders(), v.Leases, v.Path, v.Leases)
	} else {
		fmt.Fprintf(b, "  lock: %s\n", held(v.Line))
	}
	if len(v.Line) > 0 {
		writeContenders(b, line, v.Line, false, s)
	}
	if v.Leases > 0 {
		if len(v.Gate) == 0 {
			fmt.Fprintf(b, "  gate %s/gate: nobody waits for a lease\n", v.Path)
		} else {
			fmt.Fprintf(b, "  gate %s/gate: %s holds it, and takes a lease as soon as one goes (it watches %s's children)\n", v.Path, v.Gate[0].Data, line)
			writeContenders(b, v.Path+"/gate", v.Gate, true, s)
		}
	}
	for _, c := range append(v.Line, v.Gate...) {
		if c.Revoke {
			by := ""
			if c.RevokeBy != "" {
				by = " by " + c.RevokeBy
			}
			fmt.Fprintf(b, "  revoke: %s was asked%s to let go: a --revocable holder stops CMD and releases; another holds on\n", c.Data, by)
		}
	}
}

// held says who holds a read-write lock.
func held(line []lock.Contender) string {
	var names []string
	readers := 0
	for _, c := range line {
		if c.Holds {
			names = append(names, c.Data)
			if c.Mode() == "read" {
				readers++
			}
		}
	}
	switch {
	case len(names) == 0:
		return "nobody holds it"
	case readers == 1:
		return "held by " + names[0] + ": a reader; more may join it"
	case readers > 0:
		return fmt.Sprintf("held by %s: %d readers, sharing", strings.Join(names, ", "), readers)
	}
	return "held by " + names[0] + ": a writer, alone"
}

// writeContenders prints the table of one line of a lock, whose znodes
// stand under at: a semaphore's gate when gate, where each wants a lease
// and the first holds the gate, not a lease.
func writeContenders(b *strings.Builder, at string, cs []lock.Contender, gate bool, s fourletter.Sightings) {
	v := seats(at, true, cs)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SEQ\tNAME\tMODE\tSESSION\tWAITS FOR\tWATCHES\tROLE")
	for i, c := range cs {
		role, waits, mode := "waiting", "-", c.Mode()
		switch {
		case gate && c.Holds:
			role, mode = "holds the gate", "lease"
		case gate:
			mode = "lease"
		case c.Holds:
			role = "holder"
		}
		for _, o := range cs {
			if o.Name == c.Waits {
				waits = fmt.Sprintf("%010d (%s)", o.Seq, o.Data)
			}
		}
		fmt.Fprintf(tw, "  %010d\t%s\t%s\t0x%x\t%s\t%s\t%s\n", c.Seq, c.Data, mode, c.Owner, waits, watching(v, i, s), role)
	}
	_ = tw.Flush()
	for _, c := range cs {
		writeLife(b, c.Data, c.Owner, s)
	}
}

// seats is a lock's line as an election's view, for the WATCHES column
// and the election's table.
func seats(path string, exists bool, cs []lock.Contender) nodemonitor.View {
	v := nodemonitor.View{Path: path, Exists: exists}
	for _, c := range cs {
		v.Seats = append(v.Seats, c.Seat)
	}
	return v
}
