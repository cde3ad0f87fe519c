// Package seqbench measures the sequence-ID service as `seqid bench` runs
// it: IDs per second and compare-and-set conflicts against the number of
// concurrent workers and the batch size, with a persistence leader raising
// the limits as it would in production. It puts a number on the article's
// claim that compare-and-set has "no system-level bottleneck".
package seqbench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// Config is one bench run.
type Config struct {
	Servers    []string
	Workers    []int         // numbers of concurrent workers, each on its own session
	Goroutines []int         // numbers of goroutines sharing one worker's Sequence
	Batches    []int64       // IDs per call
	Backoffs   []Backoff     // the workers' backoffs after a lost compare-and-set
	Duration   time.Duration // per window
	Repeat     int           // windows per row, taken in turn with the batch's other rows; the median is shown
	Warmup     time.Duration // before the first row, not shown: a fresh server's JIT speeds it up over many seconds
	Block      int64         // the persistence leader's reservation size
	Log        *slog.Logger
}

// Backoff is one choice of sequence.WithBackoff; a zero Base retries at
// once, as the article does.
type Backoff struct {
	Base, Max time.Duration
}

// String is how the bench names the choice: "none", or "2ms-50ms".
func (b Backoff) String() string {
	if b.Base <= 0 {
		return "none"
	}
	return b.Base.String() + "-" + b.Max.String()
}

// Row is what one (backoff, batch, workers, goroutines) case measured.
type Row struct {
	Backoff    string  `json:"backoff"`
	Batch      int64   `json:"batch"`
	Workers    int     `json:"workers"`    // sessions, each with its own Sequence
	Goroutines int     `json:"goroutines"` // calling NextN at once on each worker's Sequence
	IDs        int64   `json:"ids"`
	IDsPerSec  float64 `json:"ids_per_second"`
	CASPerSec  float64 `json:"cas_per_second"`
	Conflicts  float64 `json:"conflicts_per_cas"`
	ConflictID float64 `json:"conflicts_per_id"`
	Waits      int64   `json:"waits"` // allocations that waited for the limit
	Raises     int64   `json:"raises"`
}

// Run measures every pair, batches outermost, each on a fresh sequence,
// and sends each row to out as it is done.
func Run(ctx context.Context, cfg Config, out func(Row)) error {
	dir, err := os.MkdirTemp("", "seqid-bench-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := sequence.OpenFileStore(dir)
	if err != nil {
		return err
	}
	admin, err := dial(ctx, cfg)
	if err != nil {
		return err
	}
	defer admin.Close()
	root := fmt.Sprintf("/seqid-bench-%x", rand.Uint32())
	opts := []sequence.Option{sequence.WithRoot(root), sequence.WithElection(root + "-persist"), sequence.WithLogger(cfg.Log), sequence.WithBlock(cfg.Block)}
	leaderZK, err := dial(ctx, cfg)
	if err != nil {
		return err
	}
	defer leaderZK.Close()
	defer func() { // after the persister has left: its election's folder
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = admin.Delete(c, root+"-persist", -1)
	}()
	p, err := sequence.NewPersister(ctx, leaderZK, store, opts...)
	if err != nil {
		return err
	}
	defer p.Close()
	defer func() { // leave nothing behind on the servers
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		infos, _ := sequence.List(c, admin, opts...)
		for _, in := range infos {
			_ = sequence.Delete(c, admin, in.Name, opts...)
		}
		_ = admin.Delete(c, root, -1)
	}()
	return runRows(ctx, cfg, admin, p, opts, out)
}

// dial opens a session of its own to cfg.Servers.
func dial(ctx context.Context, cfg Config) (*recoverable.RecoverableZookeeper, error) {
	rz, err := recoverable.Connect(cfg.Servers, 10*time.Second, recoverable.WithLogger(cfg.Log))
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := rz.WaitConnected(wctx); err != nil {
		rz.Close()
		return nil, fmt.Errorf("no ZooKeeper server at %v answered within 20s: %w", cfg.Servers, err)
	}
	return rz, nil
}

// runRows runs a warm-up row, not shown, then a row for each batch and
// number of workers, each worker on a session of its own, opened as the
// rows need them.
func runRows(ctx context.Context, cfg Config, admin *recoverable.RecoverableZookeeper, p *sequence.Persister, opts []sequence.Option, out func(Row)) error {
	var workers []*recoverable.RecoverableZookeeper
	defer func() {
		for _, w := range workers {
			w.Close()
		}
	}()
	sessions := func(n int) ([]*recoverable.RecoverableZookeeper, error) {
		for len(workers) < n {
			w, err := dial(ctx, cfg)
			if err != nil {
				return nil, err
			}
			workers = append(workers, w)
		}
		return workers[:n], nil
	}
	if cfg.Warmup > 0 {
		ws, err := sessions(warmers)
		if err != nil {
			return err
		}
		if err := warmUp(ctx, cfg.Warmup, admin, ws, opts); err != nil {
			return err
		}
	}
	for i, bo := range cfg.Backoffs {
		rowOpts := append(slices.Clone(opts), sequence.WithBackoff(bo.Base, bo.Max))
		for _, batch := range cfg.Batches {
			// Every case of the batch once, then again, cfg.Repeat times:
			// a drift of the machine's speed meanwhile touches them all
			// alike, and each case's median window is shown.
			shapes := cfg.shapes()
			seqs := make([][]*sequence.Sequence, len(shapes))
			for j, sh := range shapes {
				ws, err := sessions(sh.workers)
				if err != nil {
					return err
				}
				name := fmt.Sprintf("b%d-w%d-g%d-%d-%d", batch, sh.workers, sh.goroutines, i, j)
				if seqs[j], err = prepare(ctx, admin, ws, name, rowOpts); err != nil {
					return err
				}
			}
			windows := make([][]Row, len(shapes))
			for range max(cfg.Repeat, 1) {
				for j, sh := range shapes {
					row, err := measure(ctx, cfg, seqs[j], sh.goroutines, p, batch)
					if err != nil || ctx.Err() != nil {
						return err
					}
					row.Backoff = bo.String()
					windows[j] = append(windows[j], row)
				}
			}
			for _, w := range windows {
				out(median(w))
			}
		}
	}
	return nil
}

// median returns the window of the median IDs per second (the higher
// middle one of an even number).
func median(windows []Row) Row {
	sorted := slices.Clone(windows)
	slices.SortFunc(sorted, func(a, b Row) int { return cmp.Compare(a.IDsPerSec, b.IDsPerSec) })
	return sorted[len(sorted)/2]
}

// warmers is how many sequences, each with a worker of its own, the
// warm-up writes to at once.
const warmers = 8

// warmUp takes IDs from warmers sequences at once, a worker each, for d.
// A fresh server runs its hot paths faster and faster for a minute or so,
// as its JIT compiles them: without a warm-up the rows measured first are
// the slowest, and a row compared with a later one looks worse than it
// is. Separate sequences do not conflict, so the servers see many times
// the writes of one sequence, on the same code, and warm up sooner.
func warmUp(ctx context.Context, d time.Duration, admin *recoverable.RecoverableZookeeper, sessions []*recoverable.RecoverableZookeeper, opts []sequence.Option) error {
	stop := time.Now().Add(d)
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, rz := range sessions {
		name := fmt.Sprintf("warmup-%d", i)
		if err := sequence.Create(ctx, admin, name, 1, opts...); err != nil {
			return err
		}
		s, err := open(ctx, rz, name, opts)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) && ctx.Err() == nil {
				if _, err := s.Next(ctx); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// open opens the sequence name, just made by another session, on rz. The
// sync first makes rz's server catch up with the leader: a follower that
// lags behind could otherwise answer that there is no such sequence.
func open(ctx context.Context, rz *recoverable.RecoverableZookeeper, name string, opts []sequence.Option) (*sequence.Sequence, error) {
	if err := rz.Sync(ctx, "/"); err != nil {
		return nil, err
	}
	return sequence.Open(rz, name, opts...)
}

// shape is a row's workers, and goroutines per worker.
type shape struct{ workers, goroutines int }

// shapes lists the rows of one batch size: separate workers with one
// goroutine each, then one worker with many goroutines.
func (cfg Config) shapes() []shape {
	var out []shape
	for _, n := range cfg.Workers {
		out = append(out, shape{n, 1})
	}
	for _, g := range cfg.Goroutines {
		out = append(out, shape{1, g})
	}
	return out
}

// prepare makes the sequence name and opens a worker's Sequence of it on
// each session. The workers keep their Sequences from window to window, as
// long-lived workers would: what a worker learnt (how long its writes
// take, how often it lost lately) carries over.
func prepare(ctx context.Context, admin *recoverable.RecoverableZookeeper, sessions []*recoverable.RecoverableZookeeper,
	name string, opts []sequence.Option) ([]*sequence.Sequence, error) {
	if err := sequence.Create(ctx, admin, name, 1, opts...); err != nil {
		return nil, err
	}
	seqs := make([]*sequence.Sequence, len(sessions))
	for i, rz := range sessions {
		var err error
		if seqs[i], err = open(ctx, rz, name, opts); err != nil {
			return nil, err
		}
	}
	// The first ID waits for the leader to pick the sequence up: not
	// counted.
	if _, err := seqs[0].Next(ctx); err != nil {
		return nil, err
	}
	return seqs, nil
}

// measure runs goroutines on each of seqs, calling NextN, for one window
// of cfg.Duration.
func measure(ctx context.Context, cfg Config, seqs []*sequence.Sequence, goroutines int, p *sequence.Persister, batch int64) (Row, error) {
	// The window is cfg.Duration exactly: what was done in it, read at its
	// end. A call still waiting then (a worker in its backoff, say) ends
	// after it and is not counted; timing until the last call returned
	// would charge a whole backoff to a row of busy workers.
	before, raisesBefore := sum(seqs), p.Raises()
	start := time.Now()
	stop := start.Add(cfg.Duration)
	errs := make([]error, len(seqs)*goroutines)
	var wg sync.WaitGroup
	for i := range errs {
		s := seqs[i%len(seqs)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) && ctx.Err() == nil {
				if _, err := s.NextN(ctx, batch); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	select {
	case <-time.After(time.Until(stop)):
	case <-ctx.Done():
	}
	at, raises := sum(seqs), p.Raises()
	elapsed := time.Since(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Row{}, err
	}
	return row(batch, len(seqs), goroutines, at, before, raises-raisesBefore, elapsed), nil
}

// row is what a window of elapsed measured: the counts at its end less
// those at its start.
func row(batch int64, workers, goroutines int, at, before sequence.Stats, raises int64, elapsed time.Duration) Row {
	ids, writes, conflicts := at.Handed-before.Handed, at.Writes-before.Writes, at.Conflicts-before.Conflicts
	cas := writes + conflicts
	r := Row{Batch: batch, Workers: workers, Goroutines: goroutines, IDs: ids, Waits: at.Waits - before.Waits, Raises: raises,
		IDsPerSec: float64(ids) / elapsed.Seconds(), CASPerSec: float64(cas) / elapsed.Seconds()}
	if cas > 0 {
		r.Conflicts = float64(conflicts) / float64(cas)
	}
	if ids > 0 {
		r.ConflictID = float64(conflicts) / float64(ids)
	}
	return r
}

// sum adds up the counts of seqs.
func sum(seqs []*sequence.Sequence) sequence.Stats {
	var total sequence.Stats
	for _, s := range seqs {
		st := s.Stats()
		total.Handed += st.Handed
		total.Writes += st.Writes
		total.Conflicts += st.Conflicts
		total.Waits += st.Waits
	}
	return total
}
