// Package barrier holds the two barriers of ZooKeeper's recipes page: the
// simple barrier, a znode whose existence holds every waiter back until
// somebody removes it, and the double barrier, which lets a computation
// start only once N processes are in, and lets each go only once all of
// them have finished.
//
// The double barrier is the page's, with what the page leaves out:
//
//   - Members are ephemeral, sequential and protected: a create whose reply
//     was lost is found by its name (recoverable.FindOwn), not made twice.
//   - No herd: a member waiting to enter watches the ready znode alone; one
//     waiting to leave watches one member (the lowest, or, if it is the
//     lowest, the highest).
//   - A member that dies no longer counts. Before the ready znode exists,
//     the others wait for N members alive at once; after it, the others do
//     not wait for it to leave: its znode went with its session.
//   - The barrier can be used again: the ready znode names the last member
//     of its round, the last one out removes it, and members of a later
//     round wait until the earlier one is over (round.go).
//
// See README.md for the page's pseudocode beside this code.
package barrier

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrNotSet is returned by Remove when the barrier was not set.
var ErrNotSet = errors.New("barrier: not set")

// ErrCount is wrapped by a *CountError: the double barrier's count is not
// a whole number of 1 or more, or not the one its znode records.
var ErrCount = errors.New("barrier: bad count")

// ErrLost means our member znode went while we were inside the double
// barrier (our session expired, or somebody deleted it): the others no
// longer waited for us to leave.
var ErrLost = errors.New("barrier: membership lost while inside")

// ErrNotEntered is returned by Leave on a DoubleBarrier that never entered.
var ErrNotEntered = errors.New("barrier: leave before enter")

// ErrEntered is returned by a second Enter on one DoubleBarrier: it is good
// for one round; make a new one.
var ErrEntered = errors.New("barrier: Enter called twice on one DoubleBarrier; make a new one")

// Barrier is the simple barrier: while its znode exists, Wait blocks.
// It keeps no state beyond its path, so any number of goroutines may use
// it at once.
type Barrier struct {
	rz   *recoverable.RecoverableZookeeper
	path string
}

// New returns the simple barrier at path, on the session of rz. It checks
// path (an error naming the field "path", recoverable.PathError) and
// talks to no server.
func New(rz *recoverable.RecoverableZookeeper, path string) (*Barrier, error) {
	if err := recoverable.ValidatePath("path", path); err != nil {
		return nil, err
	}
	return &Barrier{rz: rz, path: path}, nil
}

// Path returns the barrier's znode path.
func (b *Barrier) Path() string { return b.path }

// Set creates the barrier's znode, persistent, with any missing parents:
// waiters wait from now on. Setting a barrier that is set already changes
// nothing, so a retry after a lost reply is no error either.
func (b *Barrier) Set(ctx context.Context) error {
	if err := b.rz.EnsurePath(ctx, b.path, b.rz.ACL()); err != nil {
		return fmt.Errorf("barrier: set %s: %w", b.path, err)
	}
	b.rz.Logger().Info("the barrier is set: waiters wait until it is removed", "barrier", b.path)
	return nil
}

// Wait returns once the barrier's znode does not exist: at once when it is
// not set, otherwise when it is removed, or with ctx's error. It is the
// page's loop: exists with a watch; if there, wait for the watch, and ask
// again. Each waiter watches the barrier's one znode, which changes once.
func (b *Barrier) Wait(ctx context.Context) error {
	told := false
	for {
		ok, _, ch, err := b.rz.ExistsW(ctx, b.path)
		if err != nil {
			return fmt.Errorf("barrier: wait %s: %w", b.path, err)
		}
		if !ok {
			return nil
		}
		if !told {
			b.rz.Logger().Info("waiting for the barrier to be removed", "barrier", b.path)
			told = true
		}
		select {
		case <-ch: // removed, changed, or the session's watch ended: ask again
		case <-ctx.Done():
			return ctx.Err()
		case <-b.rz.Done():
			return fmt.Errorf("barrier: wait %s: %w", b.path, recoverable.ErrClosed)
		}
	}
}

// Remove deletes the barrier's znode, which wakes every waiter. It fails
// with ErrNotSet when there is none, and with an error that is
// zk.ErrNotEmpty when the znode has children (a double barrier's path).
func (b *Barrier) Remove(ctx context.Context) error {
	err := b.rz.Delete(ctx, b.path, -1)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("%w: %s", ErrNotSet, b.path)
	case err != nil:
		return fmt.Errorf("barrier: remove %s: %w", b.path, err)
	}
	b.rz.Logger().Info("removed the barrier: its waiters go on", "barrier", b.path)
	return nil
}
