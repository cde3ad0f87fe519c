package seqbench

import (
	"context"
	"sync/atomic"

	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// The modes a row can measure: the two modes of a sequence, and the
// ceiling, what ZooKeeper itself takes.
const (
	ModeCAS     = string(sequence.ModeCAS)
	ModeCounter = string(sequence.ModeCounter)
	// ModeSetData is the ceiling: plain sets with version -1 of one znode,
	// from as many sessions and goroutines as the row's IDs come from, with
	// no IDs, no check and no limit. A counter's write is such a set, in a
	// multi with a check: this is how far it could go.
	ModeSetData = "setdata"
)

// taker is what a row's goroutines call: a worker's Sequence, or a
// session setting a znode for the ceiling.
type taker interface {
	take(ctx context.Context, batch int64) error
	Stats() sequence.Stats
}

// worker takes IDs from a Sequence.
type worker struct{ *sequence.Sequence }

func (w worker) take(ctx context.Context, batch int64) error {
	_, err := w.NextN(ctx, batch)
	return err
}

// setter sets one znode with version -1, for the ceiling: each set counts
// as one ID and one write, whatever the batch.
type setter struct {
	rz   *recoverable.RecoverableZookeeper
	path string
	sets atomic.Int64
}

func (s *setter) take(ctx context.Context, _ int64) error {
	if _, err := s.rz.Set(ctx, s.path, nil, -1); err != nil {
		return err
	}
	s.sets.Add(1)
	return nil
}

// Stats counts the sets as IDs handed out and as writes.
func (s *setter) Stats() sequence.Stats {
	n := s.sets.Load()
	return sequence.Stats{Handed: n, Writes: n}
}

// prepareCeiling makes the znode path and a setter of it on each session.
func prepareCeiling(ctx context.Context, admin *recoverable.RecoverableZookeeper, sessions []*recoverable.RecoverableZookeeper, path string) ([]taker, error) {
	if _, err := admin.Create(ctx, path, nil, admin.ACL()); err != nil {
		return nil, err
	}
	out := make([]taker, len(sessions))
	for i, rz := range sessions {
		if err := rz.Sync(ctx, "/"); err != nil {
			return nil, err
		}
		out[i] = &setter{rz: rz, path: path}
	}
	return out, nil
}
