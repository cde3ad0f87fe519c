package status

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"zkspeaker/internal/fourletter"
	"zkspeaker/nodemonitor"
	"zkspeaker/znodemonitor"
)

// What the WATCHES column says when the servers cannot tell; the footnotes
// under the table explain each.
const (
	inferredChildren = "all (children)?"
	notConnected     = "none: not connected"
	notVisible       = "not visible from these servers"
)

// WriteSequential prints a sequential election as a table, one candidate per
// line in order: the first leads, each other one waits on the one it
// watches. The WATCHES column says only what the servers (wchc, cons) show
// the candidates really watch: one predecessor each by default, and
// nothing they can list under --watch children (the herd).
func WriteSequential(b *strings.Builder, v nodemonitor.View, s fourletter.Sightings) {
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
	shown := map[string]bool{}
	for i, seat := range v.Seats {
		role := "waiting"
		if i == 0 {
			role = "leader"
		}
		w := watching(v, i, s)
		shown[w] = true
		fmt.Fprintf(tw, "  %010d\t%s\t0x%x\t%s\t%s\n", seat.Seq, seat.Data, seat.Owner, w, role)
	}
	_ = tw.Flush()
	if shown[inferredChildren] {
		fmt.Fprintln(b, "  ? inferred: the servers list exists and get watches only; a candidate with none watches the whole list (--watch children), or is between two watches")
	}
	if shown[notConnected] {
		fmt.Fprintln(b, "  not connected: no server holds a connection for this session: its process died (its znode goes when the session expires), or it is moving to another server")
	}
	if shown[notVisible] {
		fmt.Fprintln(b, "  not visible: this session may be connected to a server that did not answer wchc and cons")
	}
}

// watching says what seat i watches, in words.
func watching(v nodemonitor.View, i int, s fourletter.Sightings) string {
	paths, vis := s.Session(v.Seats[i].Owner)
	switch vis {
	case fourletter.NotConnected:
		return notConnected
	case fourletter.NotVisible:
		return notVisible
	}
	var out []string
	for _, path := range paths {
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
		return inferredChildren
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// WriteSingleFile prints a single-file election: the holder, and the
// candidates waiting for its znode to go, by the name each one leaves in
// the servers' watch lists (znodemonitor.NameTag), or by session.
func WriteSingleFile(b *strings.Builder, h znodemonitor.Holder, s fourletter.Sightings) {
	if !h.Held {
		fmt.Fprintf(b, "  nobody holds %s: nobody speaks\n", h.Path)
	} else {
		fmt.Fprintf(b, "  leader  %s  session 0x%x  epoch %d\n", h.Data, h.Owner, h.Czxid)
	}
	var waiting []string
	for id, paths := range s.Watchers(h.Path) {
		if id == h.Owner || id == s.Self {
			continue
		}
		who := fmt.Sprintf("0x%x", id)
		for _, p := range paths {
			if name, ok := znodemonitor.TaggedName(h.Path, p); ok {
				who = fmt.Sprintf("%s (0x%x)", name, id)
			}
		}
		waiting = append(waiting, who)
	}
	slices.Sort(waiting)
	if len(waiting) > 0 {
		sessions := "sessions watch"
		if len(waiting) == 1 {
			sessions = "session watches"
		}
		fmt.Fprintf(b, "  waiting %d %s %s: %s\n", len(waiting), sessions, h.Path, strings.Join(waiting, " "))
	}
	if !s.Complete() {
		fmt.Fprintln(b, "  not visible: candidates connected to a server that did not answer wchc and cons")
	}
}
