package live

import (
	"fmt"
	"slices"
	"strings"

	"zkspeaker/internal/fourletter"
	"zkspeaker/nodemonitor"
	"zkspeaker/znodemonitor"
)

// draw makes a Board of what the readers saw.
func (p *parts) draw() Board {
	b := Board{Group: p.group, Config: p.config, Sequences: p.sequences, Out: withHandovers(p.out, p.handovers), Servers: []Server{}}
	if p.election != nil {
		b.Election = line(p.electionPanel, *p.election, p.sightings, p.made)
	}
	if p.lock != nil {
		b.Lock = drawLock(p.lockPanel, *p.lock, p.sightings, p.made)
	}
	if p.barrier != nil {
		b.Barrier = drawBarrier(p.barrierPanel, *p.barrier, p.sightings)
	}
	if p.queue != nil {
		b.Queue = drawQueue(p.queuePanel, *p.queue, p.queueLast, p.sightings)
	}
	if p.single != nil {
		b.Single = singleFile(p.singlePanel, *p.single, p.sightings, p.made)
	}
	for _, s := range p.sightings.Servers {
		b.Servers = append(b.Servers, Server{Addr: s.Addr, Mode: s.Mode, Connections: s.Connections})
	}
	return b
}

// line draws a sequential election: the first in line leads, each other
// one waits on what the servers say it watches.
func line(p Panel, v nodemonitor.View, s fourletter.Sightings, made map[string]float64) *Election {
	e := &Election{Panel: p, Kind: "sequential", Candidates: []Candidate{}}
	e.Path, e.Exists = v.Path, v.Exists
	for i, seat := range v.Seats {
		c := candidate(seat.Data, seat.Owner, made[v.Path+"/"+seat.Name], s)
		c.Znode, c.Epoch, c.Role = seat.Name, seat.Czxid, "waiting"
		if i == 0 {
			c.Role = "leader"
		}
		c.Watches = watchesUnder(v.Path, seat.Owner, s)
		// wchc lists no children watches: a candidate the servers see
		// with no watch at all watches the whole list (the herd), or is
		// between two watches for a moment.
		if i > 0 && c.Seen == "connected" && len(c.Watches) == 0 {
			c.Watches = []string{"*"}
		}
		if slices.Contains(c.Watches, "*") {
			e.Herd = true
		}
		e.Candidates = append(e.Candidates, c)
	}
	return e
}

// watchesUnder is what the session owner watches under the line at path,
// by the servers' wchc: child names, and "*" for the whole line.
func watchesUnder(path string, owner int64, s fourletter.Sightings) []string {
	out := []string{}
	paths, _ := s.Session(owner)
	for _, w := range paths {
		if w == path {
			out = append(out, "*")
		} else if child, ok := strings.CutPrefix(w, path+"/"); ok && !strings.Contains(child, "/") {
			out = append(out, child)
		}
	}
	return out
}

// singleFile draws a single-file election: the holder of the znode, and
// the candidates the servers see waiting for it to go, by the name each
// leaves in the watch lists. A session that watches the znode without a
// name is a reader (speaker status --watch, another zkview), not a
// candidate, and is not drawn.
func singleFile(p Panel, h znodemonitor.Holder, s fourletter.Sightings, made map[string]float64) *Election {
	e := &Election{Panel: p, Kind: "single-file", Candidates: []Candidate{}}
	e.Path, e.Exists = h.Path, h.Held
	if h.Held {
		c := candidate(h.Data, h.Owner, made[h.Path], s)
		c.Role, c.Epoch = "leader", h.Czxid
		e.Candidates = append(e.Candidates, c)
	}
	var waiting []Candidate
	for id, paths := range s.Watchers(h.Path) {
		if (h.Held && id == h.Owner) || id == s.Self {
			continue
		}
		i := slices.IndexFunc(paths, func(w string) bool { _, ok := znodemonitor.TaggedName(h.Path, w); return ok })
		if i < 0 {
			continue // a reader
		}
		name, _ := znodemonitor.TaggedName(h.Path, paths[i])
		c := candidate(name, id, 0, s)
		c.Role, c.Watches = "waiting", []string{"*"}
		waiting = append(waiting, c)
	}
	slices.SortFunc(waiting, func(a, b Candidate) int { return strings.Compare(a.Name, b.Name) })
	e.Candidates = append(e.Candidates, waiting...)
	return e
}

// candidate is a contender by its name and its session, as the servers see
// that session: where it is connected, and, when it is not plainly alive,
// when they last heard from it and when its session expires. since is when
// its znode was made, for one found in line at zkview's start (else 0).
func candidate(name string, owner int64, since float64, s fourletter.Sightings) Candidate {
	c := Candidate{Name: name, Session: fmt.Sprintf("0x%x", owner), Watches: []string{}, Since: since}
	_, vis := s.Session(owner)
	switch vis {
	case fourletter.Seen:
		c.Seen, c.Server = "connected", s.Server(owner)
	case fourletter.NotConnected:
		c.Seen = "not connected"
	default:
		c.Seen = "unknown"
	}
	state, heard, known := s.Life(owner)
	c.Life = state.String()
	if state == fourletter.Gone && !known && since == 0 {
		// A session no look has seen yet: most likely one that joined
		// after the servers were last asked, not a dead one.
		c.Life, c.Seen = fourletter.Unknown.String(), "unknown"
	}
	if known && state != fourletter.Alive {
		c.Heard, c.Timeout = millis(heard.At), float64(heard.Timeout.Milliseconds())
		if state == fourletter.CutOff {
			c.Server = heard.Server // the server that does not answer
		}
	}
	return c
}
