// Package electionstatus prints an election as ZooKeeper sees it, for
// `speaker status`: the candidates in order, who watches whom (from the
// servers' wchc), who leads, and each server's mode.
package electionstatus

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"

	"github.com/go-zookeeper/zk"
)

// settle is how long --watch waits after a change before it looks:
// the candidates need a moment to set their new watches, and wchc should
// show the new ones.
const settle = 150 * time.Millisecond

// serverRecheck is how often --watch asks the servers for their modes. No
// ZooKeeper watch reports a server going down, so this one part polls.
const serverRecheck = 2 * time.Second

// Inspector reads one election's znodes, writes them to b as a table with
// the servers' watches w, and returns the ZooKeeper watch that fires at the
// election's next change. Each recipe has its own.
type Inspector func(ctx context.Context, rz *recoverable.RecoverableZookeeper, b *strings.Builder, w Watches) (<-chan zk.Event, error)

// Printer prints one election as ZooKeeper sees it, once or at every change.
type Printer struct {
	W        io.Writer
	Servers  []string
	Election string // the recipe's name, for the heading
	Path     string
	Inspect  Inspector
	Clear    bool // clear the terminal before each print (--watch on a terminal)

	modes []fourletter.ServerInfo
	last  string // what was printed last, without its time
}

// Watch prints the election, then waits for the ZooKeeper watch that Inspect
// left to fire, and prints it again.
func (s *Printer) Watch(ctx context.Context, rz *recoverable.RecoverableZookeeper) error {
	recheck := time.NewTicker(serverRecheck)
	defer recheck.Stop()
	sessions := rz.Observe(ctx)
	for {
		wake, err := s.Print(ctx, rz)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			fmt.Fprintf(s.W, "cannot read the election: %v\n", err)
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-wake:
				break wait
			case ev := <-sessions:
				if ev.State == recoverable.StateConnected || ev.State == recoverable.StateExpired {
					break wait // look again on the (new) session
				}
			case <-recheck.C:
				if !slices.Equal(s.modes, serverModes(ctx, s.Servers)) {
					break wait
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(settle):
		}
	}
}

// Print reads and prints the election once and returns the watch that fires
// at its next change.
func (s *Printer) Print(ctx context.Context, rz *recoverable.RecoverableZookeeper) (<-chan zk.Event, error) {
	var b strings.Builder
	wake, err := s.Inspect(ctx, rz, &b, gatherWatches(ctx, s.Servers))
	s.modes = serverModes(ctx, s.Servers)
	b.WriteString("servers\n")
	for _, m := range s.modes {
		fmt.Fprintf(&b, "  %-22s %s\n", m.Addr, m.Mode)
	}
	// Each server lists only its own sessions' watches, so a forgotten
	// ZK_SERVERS would show half the picture without a word.
	if n := ensembleSize(ctx, rz); n > len(s.Servers) {
		fmt.Fprintf(&b, "note: the ensemble has %d servers and --servers names %d: watches of sessions connected to the others are not shown\n", n, len(s.Servers))
	}
	// A wake-up that changed nothing (the session's replayed "connected",
	// a watch on a node that came back as it was) prints nothing.
	if b.String() == s.last {
		return wake, err
	}
	s.last = b.String()
	if s.Clear {
		_, _ = io.WriteString(s.W, "\033[H\033[2J")
	}
	fmt.Fprintf(s.W, "election %s (%s) at %s\n%s", s.Path, s.Election, time.Now().UTC().Format(time.TimeOnly), s.last)
	return wake, err
}

// ensembleSize counts the voting servers in /zookeeper/config, the
// configuration ZooKeeper 3.5 and later publish; 0 when it cannot tell, as
// on a standalone server.
func ensembleSize(ctx context.Context, rz *recoverable.RecoverableZookeeper) int {
	data, _, err := rz.Get(ctx, "/zookeeper/config")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "server.") && strings.HasSuffix(strings.TrimSpace(line), ":participant") {
			n++
		}
	}
	return n
}

// serverModes asks every server for its mode with srvr.
func serverModes(ctx context.Context, servers []string) []fourletter.ServerInfo {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	out := make([]fourletter.ServerInfo, len(servers))
	for i, addr := range servers {
		info := fourletter.Srvr(ctx, addr)
		out[i] = fourletter.ServerInfo{Addr: info.Addr, Mode: info.Mode} // only what status shows
	}
	return out
}

// gatherWatches merges wchc from every server: which paths each session
// watches. It is not known when no server allowed wchc.
func gatherWatches(ctx context.Context, servers []string) Watches {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	all := Watches{BySession: map[int64][]string{}}
	for _, addr := range servers {
		w, err := fourletter.Watches(ctx, addr)
		if err != nil {
			continue
		}
		all.Known = true
		for id, paths := range w {
			all.BySession[id] = append(all.BySession[id], paths...)
		}
	}
	return all
}
