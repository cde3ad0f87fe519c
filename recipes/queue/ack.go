package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Ack deletes an AtLeastOnce item, and its claim, once the consumer has
// used it: the item is taken for good. It returns ErrClaimLost when the
// session that claimed it ended first: the item went back to the queue,
// and another consumer may have it now. For an AtMostOnce item, deleted
// already, Ack does nothing. It is idempotent.
//
// The multi checks the marker of the session that claimed the item: a
// claim at the item's path is ours exactly while that marker stands,
// since both are ephemerals of one session. Without the check, an Ack on
// a session made after an expiry would delete another consumer's claim.
//
// An Ack whose reply was lost is settled by the ledger, and when the
// ledger was reaped meanwhile (our session ended, and we were away past
// its grace), by the item (stillThere). The error wraps ErrUnsettled only
// when neither can say: the reply was lost and the item is gone, deleted
// by this Ack or by a later consumer's.
func (it *Item) Ack(ctx context.Context) error {
	if it.claim == "" {
		return nil
	}
	end, err := it.q.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	_, err = it.q.ledger.write(ctx,
		&zk.CheckVersionRequest{Path: it.marker, Version: 0},
		&zk.DeleteRequest{Path: it.claim, Version: -1},
		&zk.DeleteRequest{Path: it.q.item(it.Name), Version: -1})
	lost := errors.Is(err, zk.ErrNoNode) || (errors.Is(err, errLedgerGone) && it.q.stillThere(ctx, it.Name))
	if err == nil || lost {
		delete(it.q.held, it.Name)
	}
	switch {
	case lost:
		it.claim = ""
		it.q.log.Info("the claim ended before the item was acknowledged; it is back in the queue", "item", it.Name)
		return fmt.Errorf("%w: %s", ErrClaimLost, it.Name)
	case err != nil:
		return fmt.Errorf("queue: ack %s: %w", it.Name, err)
	}
	it.claim = ""
	it.q.log.Debug("acknowledged an item", "item", it.Name)
	return nil
}

// Release gives an AtLeastOnce item back unused: its claim is deleted,
// and the next Take may return it. It is idempotent, and does nothing for
// an AtMostOnce item.
func (it *Item) Release(ctx context.Context) error {
	if it.claim == "" {
		return nil
	}
	end, err := it.q.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	if err := it.q.rz.DeleteOwn(ctx, it.claim, -1, it.session); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("queue: release %s: %w", it.Name, err)
	}
	it.claim = ""
	delete(it.q.held, it.Name)
	return nil
}

// stillThere reports whether the item called name is in the queue, read
// from the leader's point of view; false when that cannot be read. It
// settles an Ack whose ledger is gone: the Ack's multi deletes the item,
// and an item's name is never given again, so an item still there means
// the Ack did not go in. Its claim, made by a session that has ended (the
// ledger is reaped only after its marker went with that session), is
// then lost: no Ack can apply any more.
func (q *Queue) stillThere(ctx context.Context, name string) bool {
	if err := q.rz.Sync(ctx, q.item(name)); err != nil {
		return false
	}
	ok, _, err := q.rz.Exists(ctx, q.item(name))
	return err == nil && ok
}
