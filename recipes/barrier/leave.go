package barrier

import (
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
)

// leave is the page's leave, on the members of our round only (members of
// a later round wait for ours to end, and must not hold it up):
//
//   - no member of the round is left: done;
//   - we are the only one: the last one out removes our znode and the
//     round's ready znode together, and is done;
//   - we are the lowest: we wait for the highest to go;
//   - otherwise: we take our znode out, and wait for the lowest to go.
//
// The lowest goes last, so a member past this point knows that every
// member of the round still alive has finished its work. A member that
// dies is not waited for: its znode goes with its session, and whoever
// watched it is woken.
func (b *DoubleBarrier) leave(ctx context.Context) error {
	ours := func(m nodemonitor.Candidate) bool { return m.Seq == b.seq }
	told := false
	for {
		v, err := b.version(ctx)
		if err != nil {
			return err
		}
		members, err := b.members(ctx)
		if err != nil {
			return err
		}
		round := of(members, b.last)
		in := slices.ContainsFunc(round, ours)
		switch {
		case len(round) == 0:
			return b.closeIfOurs(ctx, v)
		case len(round) == 1 && in:
			return b.lastOut(ctx, v)
		case ours(round[0]):
			if !told {
				b.log.Info("the lowest member leaves last: waiting for the others to leave", "others", len(round)-1)
				told = true
			}
			err = b.watchOne(ctx, b.path+"/"+round[len(round)-1].Name)
		default:
			if in {
				if err := b.rz.Delete(ctx, b.own, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
					return b.errorf("leave", err)
				}
				b.log.Info("took our member znode out: waiting until the others have left", "others", len(round)-1)
			}
			err = b.watchOne(ctx, b.path+"/"+round[0].Name)
		}
		if err != nil {
			return err
		}
	}
}

// lastOut removes our znode and, with it, the round's ready znode, so
// that the barrier is ready for a next round.
func (b *DoubleBarrier) lastOut(ctx context.Context, v int32) error {
	for {
		last, ok, err := b.readReady(ctx)
		if err != nil {
			return err
		}
		if !ok || last != b.last {
			// Not our round's any more: only our znode is ours to remove.
			if err := b.rz.Delete(ctx, b.own, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return b.errorf("leave", err)
			}
			return nil
		}
		err = b.closeRound(ctx, v, b.own)
		if err == nil {
			b.log.Info("last one out: removed our member znode and the ready znode")
			return nil
		}
		if !errors.Is(err, errChanged) {
			return err
		}
		if v, err = b.version(ctx); err != nil {
			return err
		}
		if ok, _, err := b.rz.Exists(ctx, b.own); err != nil || !ok {
			return err // a retried multi's first attempt removed both
		}
	}
}

// closeIfOurs removes our round's ready znode when every member of the
// round is gone and it is still there: the last one out died.
func (b *DoubleBarrier) closeIfOurs(ctx context.Context, v int32) error {
	last, ok, err := b.readReady(ctx)
	if err != nil || !ok || last != b.last {
		return err
	}
	if err := b.closeRound(ctx, v); err != nil && !errors.Is(err, errChanged) {
		return err
	}
	return nil
}
