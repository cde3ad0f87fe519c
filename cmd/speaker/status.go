package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the election as ZooKeeper sees it: candidates in order, who watches whom, who leads",
		Flags: []cli.Flag{
			serversFlag(), electionFlag(), pathFlag(),
			&cli.BoolFlag{Name: "watch", Usage: "keep running and print the election again whenever it changes"},
		},
		Action:       runStatus,
		OnUsageError: onUsageError,
	}
}

// statusSettle is how long --watch waits after a change before it looks:
// the candidates need a moment to set their new watches, and wchc should
// show the new ones.
const statusSettle = 150 * time.Millisecond

// serverRecheck is how often --watch asks the servers for their modes. No
// ZooKeeper watch reports a server going down, so this one part polls.
const serverRecheck = 2 * time.Second

func runStatus(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", c.Args().First())}
	}
	servers, err := parseServers(c.String("servers"))
	if err != nil {
		return err
	}
	election, path, err := parseElection(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Only warnings: a disconnection is worth a line, the rest is noise here.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rz, err := recoverable.Connect(servers, 10*time.Second, recoverable.WithLogger(log))
	if err != nil {
		return err
	}
	defer rz.Close()

	st := statusPrinter{w: os.Stdout, servers: servers, election: election, path: path, clear: c.Bool("watch") && isTerminal(os.Stdout)}
	if !c.Bool("watch") {
		once, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		_, err := st.print(once, rz)
		if err != nil {
			return fmt.Errorf("cannot read the election from %s: %w", strings.Join(servers, ","), err)
		}
		return nil
	}
	return st.watch(ctx, rz)
}

// statusPrinter prints one election, once or at every change.
type statusPrinter struct {
	w        io.Writer
	servers  []string
	election electionKind
	path     string
	clear    bool
	modes    []fourletter.ServerInfo
	last     string // what was printed last, without its time
}

// watch prints the election, then waits for the ZooKeeper watch that Inspect
// left to fire, and prints it again.
func (s *statusPrinter) watch(ctx context.Context, rz *recoverable.RecoverableZookeeper) error {
	recheck := time.NewTicker(serverRecheck)
	defer recheck.Stop()
	sessions := rz.Observe(ctx)
	for {
		wake, err := s.print(ctx, rz)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			fmt.Fprintf(s.w, "cannot read the election: %v\n", err)
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
				if !slices.Equal(s.modes, s.serverModes(ctx)) {
					break wait
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(statusSettle):
		}
	}
}

// print reads and prints the election once and returns the watch that fires
// at its next change.
func (s *statusPrinter) print(ctx context.Context, rz *recoverable.RecoverableZookeeper) (<-chan zk.Event, error) {
	var b strings.Builder
	wake, err := s.election.inspect(ctx, rz, s.path, &b, s.watchesBySession(ctx))
	s.modes = s.serverModes(ctx)
	b.WriteString("servers\n")
	for _, m := range s.modes {
		fmt.Fprintf(&b, "  %-22s %s\n", m.Addr, m.Mode)
	}
	// Each server lists only its own sessions' watches, so a forgotten
	// ZK_SERVERS would show half the picture without a word.
	if n := ensembleSize(ctx, rz); n > len(s.servers) {
		fmt.Fprintf(&b, "note: the ensemble has %d servers and --servers names %d: watches of sessions connected to the others are not shown\n", n, len(s.servers))
	}
	// A wake-up that changed nothing (the session's replayed "connected",
	// a watch on a node that came back as it was) prints nothing.
	if b.String() == s.last {
		return wake, err
	}
	s.last = b.String()
	if s.clear {
		_, _ = io.WriteString(s.w, "\033[H\033[2J")
	}
	fmt.Fprintf(s.w, "election %s (%s) at %s\n%s", s.path, s.election.name, time.Now().UTC().Format(time.TimeOnly), s.last)
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
func (s *statusPrinter) serverModes(ctx context.Context) []fourletter.ServerInfo {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	out := make([]fourletter.ServerInfo, len(s.servers))
	for i, addr := range s.servers {
		info := fourletter.Srvr(ctx, addr)
		out[i] = fourletter.ServerInfo{Addr: info.Addr, Mode: info.Mode} // only what status shows
	}
	return out
}

// watchesBySession merges wchc from every server: which paths each session
// watches. It is not known when no server allowed wchc.
func (s *statusPrinter) watchesBySession(ctx context.Context) sessionWatches {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	all := sessionWatches{bySession: map[int64][]string{}}
	for _, addr := range s.servers {
		w, err := fourletter.Watches(ctx, addr)
		if err != nil {
			continue
		}
		all.known = true
		for id, paths := range w {
			all.bySession[id] = append(all.bySession[id], paths...)
		}
	}
	return all
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
