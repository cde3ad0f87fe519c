// Package seqbench measures the sequence-ID service as `seqid bench` runs
// it: IDs per second and compare-and-set conflicts against the number of
// concurrent workers and the batch size, with a persistence leader raising
// the limits as it would in production. It puts a number on the article's
// claim that compare-and-set has "no system-level bottleneck".
package seqbench

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
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
	opts := []sequence.Option{sequence.WithRoot(root), sequence.WithElection(root + "-persist"), sequence.WithBlock(cfg.Block)}
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
