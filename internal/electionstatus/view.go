package electionstatus

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"zkspeaker/nodemonitor"
	"zkspeaker/znodemonitor"
)

// WriteSequential prints a sequential election as a table, one candidate per
// line in order: the first leads, each other one waits on the one it
// watches. The WATCHES column comes from the servers (wchc) when they allow
// it, so it shows what the candidates really watch: one predecessor each
// by default, the whole list under --watch children (the herd).
func WriteSequential(b *strings.Builder, v nodemonitor.View, watches Watches) {
	if !v.Exists {
		fmt.Fprintf(b, "  %s does not exist: no speaker has joined yet\n", v.Path)
		return
	}
	if len(v.Seats) == 0 {
		fmt.Fprintln(b, "  no candidates: nobody speaks")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  SEQ\tNAME\tSESSION\tWATCHES\tROLE")
	guessed := false
	for i, seat := range v.Seats {
		role := "waiting"
		if i == 0 {
			role = "leader"
		}
		w := watching(v, i, watches)
		guessed = guessed || strings.HasSuffix(w, "?")
		fmt.Fprintf(tw, "  %010d\t%s\t0x%x\t%s\t%s\n", seat.Seq, seat.Data, seat.Owner, w, role)
	}
	_ = tw.Flush()
	if guessed {
		fmt.Fprintln(b, "  ? inferred: the servers' wchc lists only exists and get watches, and only when allowed")
	}
}

// Watches is what the servers say about who watches what (wchc).
type Watches struct {
	BySession map[int64][]string // paths each session watches
	Known     bool               // false when no server would say
}

// watching says what seat i watches, in words.
func watching(v nodemonitor.View, i int, watches Watches) string {
	if !watches.Known {
		// The servers would not say (wchc not allowed): tell what the
		// default recipe does, and say that it is expected, not seen.
		if p := v.Predecessor(i); p != nil {
			return fmt.Sprintf("%010d (%s)?", p.Seq, p.Data)
		}
		return "itself?"
	}
	var out []string
	for _, path := range watches.BySession[v.Seats[i].Owner] {
		switch {
		case path == v.Path:
			out = append(out, "all (children)")
		case strings.HasPrefix(path, v.Path+"/"):
			name := strings.TrimPrefix(path, v.Path+"/")
			j := slices.IndexFunc(v.Seats, func(s nodemonitor.Seat) bool { return s.Name == name })
			switch {
			case j == i:
				out = append(out, "itself")
			case j >= 0:
				out = append(out, fmt.Sprintf("%010d (%s)", v.Seats[j].Seq, v.Seats[j].Data))
			default:
				out = append(out, name+" (gone)")
			}
		}
	}
	if len(out) == 0 {
		// wchc lists exists and get watches only. A candidate with none
		// watches the children list (--watch children), or is between two
		// watches at this very moment.
		return "all (children)?"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// WriteSingleFile prints a single-file election: the holder, and the sessions
// waiting for its znode to go, when the servers allow wchc.
func WriteSingleFile(b *strings.Builder, h znodemonitor.Holder, watches Watches, self int64) {
	if !h.Held {
		fmt.Fprintf(b, "  nobody holds %s: nobody speaks\n", h.Path)
	} else {
		fmt.Fprintf(b, "  leader  %s  session 0x%x  epoch %d\n", h.Data, h.Owner, h.Czxid)
	}
	if !watches.Known {
		return
	}
	var waiting []string
	for id, paths := range watches.BySession {
		if id != h.Owner && id != self && slices.Contains(paths, h.Path) {
			waiting = append(waiting, fmt.Sprintf("0x%x", id))
		}
	}
	slices.Sort(waiting)
	if len(waiting) > 0 {
		sessions := "sessions watch"
		if len(waiting) == 1 {
			sessions = "session watches"
		}
		fmt.Fprintf(b, "  waiting %d %s %s: %s\n", len(waiting), sessions, h.Path, strings.Join(waiting, " "))
	}
}
