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
	"sync"
	"time"

	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// Config is one bench run.
type Config struct {
	Servers  []string
	Workers  []int         // numbers of concurrent workers, each on its own session
	Batches  []int64       // IDs per compare-and-set
	Duration time.Duration // per row
	Block    int64         // the persistence leader's reservation size
	Log      *slog.Logger
}

// Row is what one (batch, workers) pair measured.
type Row struct {
	Batch      int64   `json:"batch"`
	Workers    int     `json:"workers"`
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
	// A fresh server's JIT would slow the first row.
	warm := cfg
	warm.Duration = min(cfg.Duration, time.Second)
	one, err := sessions(1)
	if err != nil {
		return err
	}
	if _, err := measure(ctx, warm, admin, one, p, 1, "warmup", opts); err != nil {
		return err
	}
	for _, batch := range cfg.Batches {
		for _, n := range cfg.Workers {
			ws, err := sessions(n)
			if err != nil {
				return err
			}
			row, err := measure(ctx, cfg, admin, ws, p, batch, fmt.Sprintf("b%d-w%d", batch, n), opts)
			if err != nil || ctx.Err() != nil {
				return err
			}
			out(row)
		}
	}
	return nil
}

// measure runs n workers on a fresh sequence for cfg.Duration.
func measure(ctx context.Context, cfg Config, admin *recoverable.RecoverableZookeeper, sessions []*recoverable.RecoverableZookeeper,
	p *sequence.Persister, batch int64, name string, opts []sequence.Option) (Row, error) {
	if err := sequence.Create(ctx, admin, name, 1, opts...); err != nil {
		return Row{}, err
	}
	seqs := make([]*sequence.Sequence, len(sessions))
	for i, rz := range sessions {
		var err error
		if seqs[i], err = sequence.Open(rz, name, opts...); err != nil {
			return Row{}, err
		}
	}
	// The first ID waits for the leader to pick the sequence up: not
	// counted.
	if _, err := seqs[0].Next(ctx); err != nil {
		return Row{}, err
	}
	before := seqs[0].Stats()
	raisesBefore := p.Raises()
	start := time.Now()
	stop := start.Add(cfg.Duration)
	errs := make([]error, len(seqs))
	var wg sync.WaitGroup
	for i, s := range seqs {
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
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return Row{}, err
		}
	}
	var total sequence.Stats
	for i, s := range seqs {
		st := s.Stats()
		if i == 0 {
			st.Handed, st.Conflicts, st.Waits = st.Handed-before.Handed, st.Conflicts-before.Conflicts, st.Waits-before.Waits
		}
		total.Handed += st.Handed
		total.Conflicts += st.Conflicts
		total.Waits += st.Waits
	}
	cas := total.Handed/batch + total.Conflicts
	r := Row{Batch: batch, Workers: len(seqs), IDs: total.Handed, Waits: total.Waits, Raises: p.Raises() - raisesBefore,
		IDsPerSec: float64(total.Handed) / elapsed.Seconds(), CASPerSec: float64(cas) / elapsed.Seconds()}
	if cas > 0 {
		r.Conflicts = float64(total.Conflicts) / float64(cas)
	}
	if total.Handed > 0 {
		r.ConflictID = float64(total.Conflicts) / float64(total.Handed)
	}
	return r, nil
}
