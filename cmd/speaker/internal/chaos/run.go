package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"zkspeaker/internal/ensemble"
)

// soak is one run: its configuration, its random plan, the ensemble, the
// speakers and what has happened so far.
type soak struct {
	cfg      *Config
	rng      *rand.Rand // drawn from by the schedule's goroutine only
	ens      *ensemble.Ensemble
	op       *operator
	speakers []*speakerProc
	running  Running // the recipe's part
	began    time.Time
	ended    time.Time
	busy
	lines faultLines // the progress lines, in the order the faults began

	mu     sync.Mutex
	faults []Fault
	exits  []Exit
}

// Run runs a soak as cfg says and checks it. It writes out.txt, the
// speakers' logs, faults.log, summary.txt and timeline.svg into cfg.Dir.
// An error means the soak could not run; a failed check is the Report's.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if err := Validate(cfg); err != nil {
		return Report{}, err
	}
	if err := cfg.check(); err != nil { // fills in the default timings
		return Report{}, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "logs"), 0o755); err != nil {
		return Report{}, err
	}
	s := &soak{cfg: &cfg, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5eed))}
	var err error
	fmt.Fprintf(cfg.Progress, "chaos: starting %d ZooKeeper server(s)\n", cfg.Servers)
	s.ens, err = ensemble.Start(ctx, cfg.Servers, fmt.Sprintf("ZK_TICK_MS=%d", cfg.Tick.Milliseconds()), "ZK_MAX_SESSION_MS=20000")
	if err != nil {
		return Report{}, err
	}
	defer s.ens.Stop()
	out := filepath.Join(cfg.Dir, "out.txt")
	if s.op, err = newOperator(s.ens.Addrs, cfg.electionPath(), out); err != nil {
		return Report{}, err
	}
	s.op.leaderByZnode, s.op.members, s.op.anyNames = cfg.recipe().ByZnode, cfg.recipe().Members, cfg.layout().AnyNames
	defer s.op.close()
	defer func() {
		for _, sp := range s.speakers {
			sp.halt() // only what is still running
			sp.closeProxies()
		}
		if s.running.Close != nil {
			s.running.Close()
		}
	}()
	if err := s.startProcesses(ctx, out); err != nil {
		return Report{}, err
	}
	fmt.Fprintf(cfg.Progress, "chaos: %d %s stand; faults for %v (seed %d)\n", cfg.Speakers, cfg.processNoun(), cfg.Duration, cfg.Seed)
	s.began = time.Now()
	s.schedule(ctx, s.began.Add(cfg.Duration))
	// Let the last fault's aftermath show in the file: a stall after it
	// is one only once its bound has passed.
	sleep(ctx, cfg.Session+cfg.Tick+cfg.Interval+time.Second)
	s.ended = time.Now()
	fmt.Fprintf(cfg.Progress, "chaos: faults over; SIGTERM to every one of the %s\n", cfg.processNoun())
	if s.running.Wind != nil {
		s.running.Wind(ctx)
	}
	s.stopAll()
	return s.check(ctx, out)
}

// check reads what the soak left and checks it.
func (s *soak) check(ctx context.Context, out string) (Report, error) {
	cfg := s.cfg
	var left []string
	blind := cfg.layout().Unknown
	if !cfg.recipe().NoLeaks && blind == "" {
		var err error
		if left, err = s.op.leftovers(ctx, cfg.Election == "sequential", cfg.Session+time.Second); err != nil {
			return Report{}, fmt.Errorf("chaos: look for leftover znodes: %w", err)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return Report{}, err
	}
	sort.Slice(s.faults, func(i, j int) bool { return s.faults[i].Start.Before(s.faults[j].Start) })
	in := Input{Out: data, Faults: s.faults, Exits: s.exits, Leftover: left, Recipe: cfg.Recipe,
		Session: cfg.Session, Tick: cfg.Tick, Interval: cfg.Interval, Slack: Slack,
		Fence: cfg.Fence, Policy: cfg.Policy, Start: s.began, End: s.ended, GoodStatus: cfg.goodStatus,
		Bound: cfg.stallBound(), Cmd: cfg.Cmd, Blind: blind}
	if s.running.Record != nil {
		in.Record = s.running.Record()
	}
	rep, err := Check(in)
	if err != nil {
		return Report{}, err
	}
	return rep, s.writeFiles(rep, in)
}

// Slack is added to every bound the checker holds the soak to: the time a
// process on a busy 2-core machine may take beyond the protocol's own
// bound to be scheduled, start, or have its JVM answer.
const Slack = 500 * time.Millisecond

// startProcesses prepares what the recipe needs, starts its processes,
// and waits for the first line in out.
func (s *soak) startProcesses(ctx context.Context, out string) error {
	if begin := s.cfg.recipe().Begin; begin != nil {
		r, err := begin(ctx, &Env{s: s})
		if err != nil {
			return err
		}
		s.running = *r
	}
	for i, name := range s.cfg.slotNames() {
		sp, err := newSpeakerProc(s.cfg, name, s.ens.Addrs, uint64(s.cfg.Seed)+uint64(i))
		if err != nil {
			return err
		}
		if s.running.Sink != nil {
			sp.sink = s.running.Sink(name)
		}
		s.speakers = append(s.speakers, sp)
		if err := sp.start(); err != nil {
			return err
		}
	}
	return awaitFirstLine(ctx, out)
}

// stopAll sends SIGTERM to every speaker at once and notes how each ended.
func (s *soak) stopAll() {
	var wg sync.WaitGroup
	for _, sp := range s.speakers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.noteExit(sp.stop(syscall.SIGTERM, ExitLimit))
		}()
	}
	wg.Wait()
}

// awaitFirstLine waits until a leader has written.
func awaitFirstLine(ctx context.Context, out string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := os.Stat(out); err == nil && st.Size() > 0 {
			return nil
		}
		sleep(ctx, 50*time.Millisecond)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return errors.New("chaos: no speaker wrote a line within 60s of starting")
}

// writeFiles leaves the soak's record: the fault log in the events format
// that `speaker timeline --events` reads, the summary, and the picture,
// each in the recipe's words.
func (s *soak) writeFiles(rep Report, in Input) error {
	var log strings.Builder
	words := s.cfg.words()
	for _, f := range in.Faults {
		note := strings.Join(strings.Fields(f.Note), " ")
		if f.Leader && words.Lead != "" {
			note = strings.TrimSpace(words.Lead + " " + note)
		}
		fmt.Fprintf(&log, "%s %s %s %s\n", f.Start.UTC().Format(time.RFC3339Nano), words.kindName(f.Kind), f.Target, note)
	}
	if err := os.WriteFile(filepath.Join(s.cfg.Dir, "faults.log"), []byte(log.String()), 0o644); err != nil {
		return err
	}
	var sum strings.Builder
	rep.Write(&sum)
	if err := os.WriteFile(filepath.Join(s.cfg.Dir, "summary.txt"), []byte(sum.String()), 0o644); err != nil {
		return err
	}
	var svg strings.Builder
	WritePicture(&svg, s.cfg.String(), in, rep)
	return os.WriteFile(filepath.Join(s.cfg.Dir, "timeline.svg"), []byte(svg.String()), 0o644)
}
