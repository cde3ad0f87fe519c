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
		fmt.Fprintf(b, "  %s does not exist: no speaker has joined yet, %s\n", v.Path, nobodySpeaks)
		return
	}
	if len(v.Seats) == 0 {
		fmt.Fprintln(b, "  no candidates: "+nobodySpeaks)
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
	for _, seat := range v.Seats {
		writeLife(b, seat.Data, seat.Owner, s)
	}
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
// the servers' watch lists (znodemonitor.NameTag). A session that watches
// the znode but left no name is a reader, such as another status --watch
// or zkview: it is counted apart, never listed as a candidate.
func WriteSingleFile(b *strings.Builder, h znodemonitor.Holder, s fourletter.Sightings) {
	if !h.Held {
		fmt.Fprintf(b, "  nobody holds %s: %s\n", h.Path, nobodySpeaks)
	} else {
		fmt.Fprintf(b, "  leader  %s  session 0x%x  epoch %d\n", h.Data, h.Owner, h.Czxid)
		writeLife(b, h.Data, h.Owner, s)
	}
	var waiting []string
	readers := 0
	for id, paths := range s.Watchers(h.Path) {
		if id == h.Owner || id == s.Self {
			continue
		}
		name, ok := taggedName(h.Path, paths)
		if !ok {
			readers++
			continue
		}
		waiting = append(waiting, fmt.Sprintf("%s (0x%x)", name, id))
	}
	slices.Sort(waiting)
	if len(waiting) > 0 {
		fmt.Fprintf(b, "  waiting %d %s %s: %s\n", len(waiting), plural(len(waiting), "session watches", "sessions watch"), h.Path, strings.Join(waiting, " "))
	}
	if readers > 0 {
		fmt.Fprintf(b, "  %d other %s %s but left no candidate's name: %s such as status --watch or zkview, not %s\n",
			readers, plural(readers, "session watches", "sessions watch"), h.Path, plural(readers, "a reader", "readers"), plural(readers, "a candidate", "candidates"))
	}
	if !s.Complete() {
		fmt.Fprintln(b, "  not visible: candidates connected to a server that did not answer wchc and cons")
	}
}

// taggedName is the name a waiting candidate left among its watches
// (znodemonitor.NameTag), and false for a session that left none.
func taggedName(path string, watches []string) (string, bool) {
	for _, w := range watches {
		if name, ok := znodemonitor.TaggedName(path, w); ok {
			return name, true
		}
	}
	return "", false
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
