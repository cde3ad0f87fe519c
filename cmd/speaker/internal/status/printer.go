// Package status prints an election as ZooKeeper sees it, for
// `speaker status`: the candidates in order, who watches whom (from every
// server's wchc and cons), who leads, and each server's mode.
package status

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"

	"zkspeaker/recoverable"
)

// settle is how long --watch waits after a change before it looks:
// the candidates need a moment to set their new watches, and wchc should
// show the new ones.
const settle = 150 * time.Millisecond

// Recheck is how often --watch asks the servers again, whatever the
// watches say: no ZooKeeper watch reports a server going down, a candidate
// moving to another server or a process dying, so this one part polls.
const Recheck = 2 * time.Second

// Render draws an election that was read before with what the servers say
// now, so that --watch can redraw it without reading the znodes again.
type Render func(b *strings.Builder, s fourletter.Sightings)

// Inspector reads one election's znodes and returns how to draw them, and
// the ZooKeeper watch that fires at the election's next change. Each recipe
// has its own.
type Inspector func(ctx context.Context, rz *recoverable.RecoverableZookeeper) (Render, <-chan zk.Event, error)

// Printer prints one election as ZooKeeper sees it, once or at every change.
type Printer struct {
	W        io.Writer
	Servers  []string // --servers; every other server of the ensemble is found in /zookeeper/config
	Election string   // the recipe's name, for the heading
	Path     string
	Inspect  Inspector
	Clear    bool // clear the terminal before each print (--watch on a terminal)
	// Others are the other recipes' elections, which status shows with a
	// hint when nobody speaks in its own.
	Others []Other

	watching bool        // Watch, not Once: the hint says --watch
	others   []otherView // the Others as last read

	render  Render               // the election as last read
	readErr error                // why the last read failed, for --watch
	members fourletter.Members   // the servers asked
	seen    fourletter.Sightings // what they said last
	last    string               // what was printed last, without its time
}

// Once reads the election and prints it.
func (s *Printer) Once(ctx context.Context, rz *recoverable.RecoverableZookeeper) error {
	render, _, err := s.Inspect(ctx, rz)
	if err != nil {
		return err
	}
	s.render = render
	s.readOthers(ctx, rz)
	s.show(ctx, rz)
	return nil
}

// Watch prints the election, then prints it again whenever the ZooKeeper
// watch that Inspect left fires (or one on the Others), status's own
// session changes, or the servers say something new. It returns nil when
// ctx is done.
func (s *Printer) Watch(ctx context.Context, rz *recoverable.RecoverableZookeeper) error {
	s.watching = true
	ticker := time.NewTicker(Recheck)
	defer ticker.Stop()
	// Observe first tells the state the session is in now: only a change
	// of it is news.
	state := rz.State().State
	sessions := rz.Observe(ctx)
	for {
		wakes := s.read(ctx, rz)
		if ctx.Err() != nil {
			return nil
		}
		s.show(ctx, rz)
		if !s.await(ctx, rz, wakes, sessions, &state, ticker.C) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(settle):
		}
	}
}

// read reads the election and the Others, and returns the watches that
// fire at their next changes.
func (s *Printer) read(ctx context.Context, rz *recoverable.RecoverableZookeeper) []<-chan zk.Event {
	render, wake, err := s.Inspect(ctx, rz)
	if err == nil {
		s.render = render
	}
	s.readErr = err
	return append([]<-chan zk.Event{wake}, s.readOthers(ctx, rz)...)
}

// await waits for a change worth reading the election again for, and
// prints what the servers say meanwhile. It returns false when ctx is done.
func (s *Printer) await(ctx context.Context, rz *recoverable.RecoverableZookeeper, wakes []<-chan zk.Event,
	sessions <-chan recoverable.SessionEvent, state *recoverable.SessionState, tick <-chan time.Time) bool {
	round, cancel := context.WithCancel(ctx)
	defer cancel()
	fired := anyFires(round, wakes)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-fired:
			return true
		case ev := <-sessions:
			if ev.State == *state {
				continue
			}
			*state = ev.State
			if ev.State == recoverable.StateConnected || ev.State == recoverable.StateExpired {
				return true // read again on the (new) session
			}
			s.show(ctx, rz) // say that we are cut off
		case <-tick:
			s.show(ctx, rz)
		}
	}
}

// show asks every server, draws the election with what they say, and
// prints it unless nothing changed since the last print.
func (s *Printer) show(ctx context.Context, rz *recoverable.RecoverableZookeeper) {
	s.members = fourletter.ReadMembers(ctx, rz.Get, s.Servers, s.members)
	seen := fourletter.Gather(ctx, s.members, rz.SessionID(), s.seen)
	s.seen = seen
	var b strings.Builder
	if s.render != nil {
		s.render(&b, seen)
	}
	s.writeOthers(&b, seen)
	if s.readErr != nil {
		fmt.Fprintf(&b, "  cannot read the election: %v\n", s.readErr)
	}
	b.WriteString("servers\n")
	for _, m := range seen.Servers {
		fmt.Fprintf(&b, "  %-22s %s\n", m.Addr, m.Mode)
	}
	if s.members.Known && !s.members.Complete {
		fmt.Fprintf(&b, "note: the ensemble has %d servers, --servers names %d, and /zookeeper/config gives no client ports: sessions connected to the others are not visible\n",
			s.members.Size, len(s.Servers))
	}
	// In --watch, a line in the display rather than a log line across it.
	if st := rz.State(); st.State != recoverable.StateConnected {
		fmt.Fprintf(&b, "status itself is %s: what it shows of the election may be out of date\n", stateWords(st.State))
	}
	// A wake-up that changed nothing (the session's replayed "connected",
	// a watch on a node that came back as it was) prints nothing.
	if b.String() == s.last {
		return
	}
	s.last = b.String()
	if s.Clear {
		_, _ = io.WriteString(s.W, "\033[H\033[2J")
	}
	fmt.Fprintf(s.W, "election %s (%s) at %s\n%s", s.Path, s.Election, time.Now().UTC().Format(time.TimeOnly), s.last)
}

// stateWords says what status's own session is doing, in words.
func stateWords(st recoverable.SessionState) string {
	switch st {
	case recoverable.StateDisconnected:
		return "disconnected from ZooKeeper, reconnecting"
	case recoverable.StateExpired:
		return "without a session: it expired; opening a new one"
	case recoverable.StateConnecting:
		return "connecting to ZooKeeper"
	default:
		return st.String()
	}
}
