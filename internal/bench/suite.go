package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"zkspeaker/internal/ensemble"
)

// Suite is what `speaker bench` runs: its cases in order, on servers or on a
// standalone server of its own, then a look at a speaker process's cost.
type Suite struct {
	Servers []string // nil: start a standalone server for the run
	Cases   []Case
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
		s.Servers = []string{srv.Addr}
		fmt.Fprintf(progress, "bench: started a standalone ZooKeeper server at %s\n", srv.Addr)
	}
	b := New(s.Servers, s.Session, s.Log)
	report := NewReport(out, s.JSON)
	for _, bc := range s.Cases {
		fmt.Fprintf(progress, "bench: %s, %d candidates, %d failovers...\n", bc, bc.Candidates, bc.Rounds)
		row, err := b.Run(ctx, bc)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s at %d candidates: %w", bc, bc.Candidates, err)
		}
		report.Row(row)
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
