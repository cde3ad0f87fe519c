package barrier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// errGone means our member znode is gone while we waited to enter: the
// session expired, or somebody deleted it. We enter again.
var errGone = errors.New("barrier: our member znode is gone")

// enter records the count, makes our member znode and waits for the round
// it belongs to; after an expiry it does it again on the new session.
func (b *DoubleBarrier) enter(ctx context.Context) error {
	if err := b.record(ctx); err != nil {
		return err
	}
	name, err := recoverable.NewProtectedName(memberPrefix)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.protected = name
	b.mu.Unlock()
	for {
		err := b.join(ctx)
		if err == nil {
			err = b.awaitReady(ctx)
		}
		if errors.Is(err, errGone) || errors.Is(err, zk.ErrSessionExpired) {
			b.log.Info("our member znode went while we waited (session expired?): entering again, and counted again")
			continue
		}
		return err
	}
}

// join makes our member znode (protected: a lost reply is found, not made
// twice) and notes its sequence number.
func (b *DoubleBarrier) join(ctx context.Context) error {
	b.mu.Lock()
	name := b.protected
	b.mu.Unlock()
	own, err := b.rz.CreateProtectedEphemeralSequential(ctx, b.path, name, []byte(b.name), b.rz.ACL())
	if err != nil {
		return b.errorf("enter", err)
	}
	line := nodemonitor.Line([]string{own[len(b.path)+1:]})
	if len(line) != 1 {
		return b.errorf("enter", fmt.Errorf("made %s, not a member's name", own))
	}
	b.mu.Lock()
	b.own, b.seq = own, line[0].Seq
	b.mu.Unlock()
	b.log.Info("in: waiting until enough members are in", "member", own, "count", b.count)
	return nil
}

// awaitReady is the page's enter after the create: it returns once the
// ready znode of our round exists. While there is none, it watches the
// ready znode, and only that, and counts the members: the member that
// counts N opens the round. A member that died meanwhile is not counted,
// as its znode is gone. A ready znode of an earlier round waits until that
// round is over (awaitRoundEnd).
func (b *DoubleBarrier) awaitReady(ctx context.Context) error {
	told := -1 // the count last logged
	for {
		v, err := b.version(ctx)
		if err != nil {
			return err
		}
		last, ok, err := b.readReady(ctx)
		if err != nil {
			return err
		}
		if ok && last >= b.seq {
			// Counted, but our znode may have gone since (an expiry while
			// we were cut off or frozen): then nobody waits for us inside,
			// and we belong to the next round.
			if mine, _, err := b.rz.Exists(ctx, b.own); err != nil || !mine {
				return cmp.Or(err, errGone)
			}
			b.mu.Lock()
			b.last = last
			b.mu.Unlock()
			b.log.Info("enough members are in: past the barrier", "member", b.own, "round", last)
			return nil
		}
		if ok {
			if err := b.awaitRoundEnd(ctx, v, last); err != nil {
				return err
			}
			continue
		}
		ok, _, wake, err := b.rz.ExistsW(ctx, b.readyPath())
		if err != nil {
			return b.errorf("enter", err)
		}
		if ok {
			continue // made in between: read it
		}
		members, err := b.members(ctx)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(members, func(m nodemonitor.Candidate) bool { return m.Seq == b.seq }) {
			return errGone
		}
		if len(members) >= b.count {
			err := b.openRound(ctx, v, members[len(members)-1].Seq)
			if err == nil {
				b.log.Info("counted enough members: opened the barrier", "in", len(members), "count", b.count)
			} else if !errors.Is(err, errChanged) {
				return err
			}
			continue // read the ready znode, ours or another's
		}
		if told != len(members) {
			b.log.Info("waiting for more members", "in", len(members), "count", b.count)
			told = len(members)
		}
		if err := b.sleep(ctx, wake); err != nil {
			return err
		}
	}
}

// awaitRoundEnd waits while members of the round that ends at last are
// still there, watching the lowest of them; once none is left (they all
// died, or the last one out could not remove it), it removes the round's
// ready znode itself.
func (b *DoubleBarrier) awaitRoundEnd(ctx context.Context, v int32, last int64) error {
	members, err := b.members(ctx)
	if err != nil {
		return err
	}
	round := of(members, last)
	if len(round) == 0 {
		err := b.closeRound(ctx, v)
		if err == nil {
			b.log.Info("removed the ready znode of a round whose members are all gone")
		}
		if errors.Is(err, errChanged) {
			return nil
		}
		return err
	}
	b.log.Info("an earlier round is still inside: waiting until it has left", "its_members", len(round))
	return b.watchOne(ctx, b.path+"/"+round[0].Name)
}

// watchOne waits until the znode at p is gone or changes; it returns at
// once when it is gone already.
func (b *DoubleBarrier) watchOne(ctx context.Context, p string) error {
	ok, _, wake, err := b.rz.ExistsW(ctx, p)
	if err != nil {
		return b.errorf("watch", err)
	}
	if !ok {
		return nil
	}
	return b.sleep(ctx, wake)
}

// sleep waits for a watch to fire, or ctx, or the session's close.
func (b *DoubleBarrier) sleep(ctx context.Context, wake <-chan zk.Event) error {
	select {
	case <-wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-b.rz.Done():
		return b.errorf("wait", recoverable.ErrClosed)
	}
}
