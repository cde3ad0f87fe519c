// Package seqbench measures the sequence-ID service as `seqid bench` runs
// it: IDs per second and conflicts against the mode (compare-and-set or
// counter), the number of concurrent workers and the batch size, with a
// persistence leader raising the limits as it would in production, beside
// the ceiling, plain sets of one znode. It puts a number on the article's
// claim that compare-and-set has "no system-level bottleneck", and on how
// near a counter comes to what ZooKeeper itself takes.
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
	Modes      []string      // ModeCAS, ModeCounter, ModeSetData: each row of a batch in each
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
	Mode       string  `json:"mode"` // ModeCAS, ModeCounter, or ModeSetData: the ceiling, whose IDs are sets
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
		sets, _ := admin.Children(c, root+"-setdata")
		for _, name := range sets {
			_ = admin.Delete(c, root+"-setdata/"+name, -1)
		}
		_ = admin.Delete(c, root+"-setdata", -1)
	}()
	return runRows(ctx, cfg, admin, p, root, opts, out)
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
func runRows(ctx context.Context, cfg Config, admin *recoverable.RecoverableZookeeper, p *sequence.Persister, root string, opts []sequence.Option, out func(Row)) error {
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
		for b, batch := range cfg.Batches {
			// The ceiling does not depend on the backoff or the batch: it
			// is measured once, among the first batch's rows.
			rows, err := prepareGroup(ctx, cfg, admin, sessions, rowOpts, batch, root, fmt.Sprintf("%d-%d", i, b), i == 0 && b == 0)
			if err != nil {
				return err
			}
			// Every row of the batch once, then again, cfg.Repeat times:
			// a drift of the machine's speed meanwhile touches them all
			// alike, and each row's median window is shown.
			windows := make([][]Row, len(rows))
			for range max(cfg.Repeat, 1) {
				for j, r := range rows {
					row, err := measure(ctx, cfg, r.takers, r.goroutines, p, r.batch)
					if err != nil || ctx.Err() != nil {
						return err
					}
					row.Backoff, row.Mode = bo.String(), r.mode
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

// groupRow is one row of a batch's group, ready to measure.
type groupRow struct {
	mode   string
	batch  int64
	takers []taker
	shape
}

// prepareGroup makes the sequences (or, for the ceiling, the znodes under
// root-setdata) of every row of one batch, each mode's rows in turn, on
// sessions opened as they are needed; gid tells the groups' names apart.
// ceiling is whether the group measures ModeSetData, if cfg.Modes has it.
func prepareGroup(ctx context.Context, cfg Config, admin *recoverable.RecoverableZookeeper, sessions func(int) ([]*recoverable.RecoverableZookeeper, error),
	opts []sequence.Option, batch int64, root, gid string, ceiling bool) ([]groupRow, error) {
	var rows []groupRow
	for _, mode := range cfg.Modes {
		if mode == ModeSetData && !ceiling {
			continue
		}
		for j, sh := range cfg.shapes() {
			ws, err := sessions(sh.workers)
			if err != nil {
				return nil, err
			}
			r := groupRow{mode: mode, batch: batch, shape: sh}
			name := fmt.Sprintf("b%d-%s-w%d-g%d-%s-%d", batch, mode, sh.workers, sh.goroutines, gid, j)
			if mode == ModeSetData {
				r.batch = 1
				if err := admin.EnsurePath(ctx, root+"-setdata", admin.ACL()); err != nil {
					return nil, err
				}
				r.takers, err = prepareCeiling(ctx, admin, ws, root+"-setdata/"+name)
			} else {
				r.takers, err = prepare(ctx, admin, ws, name, append(slices.Clone(opts), sequence.WithMode(sequence.Mode(mode))))
			}
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
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
