package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"zkspeaker/internal/ensemble"
)

// Suite is what `speaker bench` runs: its cases, side by side with our
// lock and the zk.Lock baseline at each number of candidates, on servers or on a
// standalone server of its own, then a look at a speaker process's cost.
type Suite struct {
	Servers []string // nil: start a standalone server for the run
	Cases   []Case
	Warmup  int           // failovers per case not counted, before the rounds
	Session time.Duration // the session timeout to ask for
	Window  time.Duration // how long to watch a speaker process; 0 skips it
	JSON    bool
	Log     *slog.Logger
}

// RunSuite runs s, printing the report to out and its progress to progress.
// It returns nil, with the rows so far, when ctx is cancelled (Ctrl-C).
func RunSuite(ctx context.Context, s Suite, out, progress io.Writer) error {
	if s.Servers == nil {
		// Sessions of up to 10 minutes, so that idle candidates never expire.
		srv, err := ensemble.StartStandalone(ctx, "ZK_TICK_MS=2000", "ZK_MAX_SESSION_MS=600000")
		if err != nil {
			return fmt.Errorf("%w (or give --servers)", err)
		}
		defer srv.Stop()
		s.Servers = srv.Addrs
		fmt.Fprintf(progress, "bench: started a standalone ZooKeeper server at %s\n", srv.Addrs[0])
	}
	b := New(s.Servers, s.Session, s.Log)
	report := NewReport(out, s.JSON)
	for _, group := range byCandidates(s.Cases) {
		n := group[0].Candidates
		names := make([]string, len(group))
		for i, bc := range group {
			names[i] = bc.String()
		}
		fmt.Fprintf(progress, "bench: %d candidates each for %s, side by side: %d warm-up and %d measured failovers of each...\n",
			n, strings.Join(names, ", "), s.Warmup, group[0].Rounds)
		rows, err := b.Run(ctx, group, s.Warmup)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("at %d candidates: %w", n, err)
		}
		for _, r := range rows {
			report.Row(r)
		}
	}
	report.Flush()
	if s.Window <= 0 {
		return nil
	}
	exe, err := os.Executable() // the speaker binary itself: the bench is one of its commands
	if err != nil {
		return err
	}
	procs, err := MeasureProcesses(ctx, exe, s.Servers, s.Window)
	if err != nil {
		return err
	}
	report.Processes(procs)
	return nil
}

// byCandidates groups cases by their number of candidates, in the order
// the numbers first come, and adds to each group a resignation's row of its
// first recipe, our lock and the baseline.
func byCandidates(cases []Case) [][]Case {
	var groups [][]Case
	for _, bc := range cases {
		i := slices.IndexFunc(groups, func(g []Case) bool { return g[0].Candidates == bc.Candidates })
		if i < 0 {
			groups = append(groups, nil)
			i = len(groups) - 1
		}
		groups[i] = append(groups[i], bc)
	}
	for i, g := range groups {
		// The first recipe once more, its leader resigning instead of
		// exiting: the two handovers side by side.
		r := g[0]
		r.Resign = true
		g = append(g, r)
		for _, l := range []Case{RecipeLock(), LockBaseline()} {
			l.Candidates, l.Rounds = g[0].Candidates, g[0].Rounds
			g = append(g, l)
		}
		groups[i] = g
	}
	return groups
}
