package seqbench

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"zkspeaker/recipes/sequence"
)

// measure runs goroutines on each of seqs, taking batches, for one window
// of cfg.Duration.
func measure(ctx context.Context, cfg Config, seqs []taker, goroutines int, p *sequence.Persister, batch int64) (Row, error) {
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
				if err := s.take(ctx, batch); err != nil {
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
func sum(seqs []taker) sequence.Stats {
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

// median returns the window of the median IDs per second (the higher
// middle one of an even number).
func median(windows []Row) Row {
	sorted := slices.Clone(windows)
	slices.SortFunc(sorted, func(a, b Row) int { return cmp.Compare(a.IDsPerSec, b.IDsPerSec) })
	return sorted[len(sorted)/2]
}
