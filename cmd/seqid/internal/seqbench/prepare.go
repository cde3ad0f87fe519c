package seqbench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

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
		// Both modes' paths, half the sequences each.
		opts := append(slices.Clone(opts), sequence.WithMode([]sequence.Mode{sequence.ModeCAS, sequence.ModeCounter}[i%2]))
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

// prepare makes the sequence name and opens a worker's Sequence of it on
// each session. The workers keep their Sequences from window to window, as
// long-lived workers would: what a worker learnt (how long its writes
// take, how often it lost lately) carries over.
func prepare(ctx context.Context, admin *recoverable.RecoverableZookeeper, sessions []*recoverable.RecoverableZookeeper,
	name string, opts []sequence.Option) ([]taker, error) {
	if err := sequence.Create(ctx, admin, name, 1, opts...); err != nil {
		return nil, err
	}
	seqs := make([]taker, len(sessions))
	for i, rz := range sessions {
		s, err := open(ctx, rz, name, opts)
		if err != nil {
			return nil, err
		}
		seqs[i] = worker{s}
	}
	// The first ID waits for the leader to pick the sequence up: not
	// counted.
	if err := seqs[0].take(ctx, 1); err != nil {
		return nil, err
	}
	return seqs, nil
}
