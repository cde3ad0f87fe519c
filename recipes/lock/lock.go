// Package lock is the ZooKeeper chapter's distributed lock, done as the
// chapter says it must be: sequential ephemeral children of the lock
// znode, each waiter watching only its predecessor (no herd), a protected
// name so that a lost create reply is found rather than orphaned, and the
// loss of the lock reported to its holder.
//
// A lock and a leader election are the same recipe: the holder is the
// leader. So a Lock is a nodemonitor candidate whose listener, instead of
// speaking, says "held" and "lost".
//
// A Lock is the write lock of a shared lock: with Shared, it is a read
// lock on the same path instead, and readers hold together (rule.go).
// With Leases it is one of N leases of a semaphore (semaphore.go). As in
// the ZooKeeper website's revocable locks, anyone may ask the holders to
// let go (Revoke), and a Revocable holder hears it (revocable.go).
package lock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// ErrLost is returned by Lock when the lock was lost in the very moment it
// was won: its first confirm failed.
var ErrLost = errors.New("lock: lost")

// ErrLocked is returned by a second call of Lock on one Lock: a Lock is
// good for one acquisition; make a new one.
var ErrLocked = errors.New("lock: Lock called twice on one Lock; make a new one")

// ErrUnlocked is returned by Lock when Unlock was called while it waited.
var ErrUnlocked = errors.New("lock: unlocked while waiting in line")

// Lock is one contender for the lock at a path. Lock it, do the work while
// Lost stays open, Unlock. A Lock is good for one acquisition: after
// Unlock, or once lost, make a new one.
type Lock struct {
	rz   *recoverable.RecoverableZookeeper
	opts []nodemonitor.Option
	name string
	root string // the lock's path
	// A semaphore's (Leases): its number, and its gate's policy.
	leases    int
	semaphore bool
	policy    nodemonitor.Policy
	// Revocation (revocable.go): whether we watch for a request, whether
	// we honour it, and Revoked's channel.
	marks, revocable bool
	revoked          chan struct{}

	h   *holder                             // made by New: Observe, Lost and Done work before Lock
	mon atomic.Pointer[nodemonitor.Monitor] // set by Lock

	mu      sync.Mutex
	epoch   int64
	started bool
	// The connection guard's goroutine (at-most-one only): see guard.
	stopGuard context.CancelFunc
	guardDone chan struct{}
	// The watch for revoke marks' goroutine: see startMarks.
	stopMarks context.CancelFunc
	marksDone chan struct{}
}

// New returns a Lock on the lock znode path (created if missing), on the
// session of rz. name is stored in the contender's znode, so that
// `zkCli.sh` and `speaker status` show who waits. Its znodes carry the
// session's ACL (recoverable.WithACL, which recoverable.Access gives for
// --auth), and its election logs to the session's logger
// (recoverable.WithLogger).
func New(rz *recoverable.RecoverableZookeeper, path, name string, opts ...Option) *Lock {
	o := options{policy: nodemonitor.AtMostOne}
	for _, opt := range opts {
		opt(&o)
	}
	l := &Lock{rz: rz, opts: o.monitorOptions(path), name: name, root: path, leases: o.leases, semaphore: o.semaphore, policy: o.policy,
		marks: o.marks, revocable: o.revocable, revoked: make(chan struct{})}
	l.h = newHolder(name, l.enginePaused)
	return l
}

// enginePaused reports whether the election engine has paused its leader:
// its connection is lost, under at-most-one, while the session may live.
func (l *Lock) enginePaused() bool {
	mon := l.mon.Load()
	return mon != nil && mon.State() == nodemonitor.StatePaused
}

// Lock waits in line until the lock is ours and proven so (a confirm under
// the at-most-one policy), or until ctx is done; then it leaves the line
// and returns ctx's error. It fails at once with nodemonitor.ErrNotAllowed
// when the lock znode's ACL refuses our credentials, with
// recoverable.ErrClosed when the session is closed under it, and with
// ErrUnlocked when Unlock is called meanwhile.
func (l *Lock) Lock(ctx context.Context) error {
	l.mu.Lock()
	if l.started {
		l.mu.Unlock()
		return ErrLocked
	}
	l.started = true
	l.mu.Unlock()
	if l.semaphore {
		gate, err := l.admitted(ctx)
		if err != nil {
			return err
		}
		defer unlockGate(gate, l.rz.SessionTimeout())
	} else if err := l.refuseSemaphore(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	h := l.h
	mon, err := nodemonitor.New(l.rz, h, l.opts...)
	if err != nil {
		l.mu.Unlock()
		return fmt.Errorf("lock: %w", err)
	}
	l.mon.Store(mon)
	l.mu.Unlock()
	var checks *semaphoreCheck
	if !l.semaphore {
		c, stop := context.WithCancel(ctx)
		var ended <-chan struct{}
		checks, ended = l.checkEachCreate(c, mon)
		defer func() { stop(); <-ended }()
	}

	select {
	case a := <-h.acquired:
		return l.take(ctx, a, mon, checks)
	case <-mon.Done():
		// It gave up, as the ACL refuses our credentials
		// (nodemonitor.ErrNotAllowed); or its owner closed the session; or
		// Unlock closed it.
		if err := mon.Err(); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if l.rz.Closing() {
			return fmt.Errorf("lock: %w", recoverable.ErrClosed)
		}
		return ErrUnlocked
	case <-ctx.Done():
		l.release()
		return ctx.Err()
	}
}

// take hands the lock the engine offered to Lock's caller: it proves it
// ours (the first confirm, under at-most-one), checks that no semaphore
// took the path meanwhile, and starts the guard and the watch for revoke
// requests.
func (l *Lock) take(ctx context.Context, a acquisition, mon *nodemonitor.Monitor, checks *semaphoreCheck) error {
	h := l.h
	// The session the lock was won on: the guard follows it, and a change
	// before the guard starts is a loss, not a new session to adopt.
	session := l.rz.SessionID()
	epoch := int64(0)
	if a.confirm != nil {
		// Under at-most-one, the first confirm is the decision's own
		// proof, so this costs no round trip when the recipe had one.
		c, cancel := context.WithTimeout(ctx, time.Second)
		e, _, err := a.confirm(c)
		cancel()
		if err != nil {
			l.release()
			return fmt.Errorf("%w: %w", ErrLost, err)
		}
		epoch = e
	}
	if checks != nil {
		// Checked before we joined too, but a semaphore may have recorded
		// its N since: read after our create, the record is seen, or the
		// semaphore saw our znode and refused (semcheck.go).
		if err := checks.await(ctx, mon.Node()); err != nil {
			l.release()
			return err
		}
	}
	l.mu.Lock()
	l.epoch = epoch
	if !h.held() || a.confirm != nil && l.rz.SessionID() != session {
		// Lost while we handed it over: the engine stopped, or the
		// session changed, after it offered us the lock.
		l.mu.Unlock()
		l.release()
		return ErrLost
	}
	if a.confirm != nil {
		l.startGuard(session)
	}
	l.startMarks(mon.Node())
	l.mu.Unlock()
	close(h.acted)
	return nil
}

// Lost is closed at the first moment a held lock is not proved ours: the
// session expired, someone deleted the holder's znode, Unlock, or, under
// at-most-one, the connection was lost (StateSuspended), even if it comes
// back in time. The holder must stop the work it guards at once; Lost
// never opens again. A holder that can pause its work and resume it
// follows Observe instead.
func (l *Lock) Lost() <-chan struct{} { return l.h.lost }

// Epoch is the lock's epoch: the czxid of the holder's znode, which grows
// with every new holder. Hand it to what the lock guards, so that it can
// refuse an older holder's late writes (fencing). It is 0 under the
// at-least-one policy, which confirms nothing.
func (l *Lock) Epoch() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// Unlock releases the lock, or leaves the line: it deletes our znode, so
// that the next in line takes over at once, and waits until that is done,
// or until ctx is. It returns nil once our znode is gone, deleted or gone
// with our session; otherwise the delete's error (ctx ended while we were
// cut off from ZooKeeper, say): the znode then stays, and keeps the next
// in line waiting, until our session ends or a later Unlock deletes it.
// The lock is released either way: Lost and Done are closed. It is safe to
// call more than once, and on a lost lock, as etcd's Mutex.Unlock is.
func (l *Lock) Unlock(ctx context.Context) error {
	mon := l.release()
	if mon == nil {
		return nil // never locked: nothing was created
	}
	if err := mon.Leave(ctx); err != nil {
		return fmt.Errorf("lock: unlock: %w", err)
	}
	return nil
}

// release ends the Lock without waiting for the delete: the holder is
// released, the engine closed (it tries the delete once, unless cut off),
// the guard stopped. It returns the engine's monitor, nil before Lock.
func (l *Lock) release() *nodemonitor.Monitor {
	l.h.release() // first: the engine's stop, as it leaves, is no loss
	mon := l.mon.Load()
	l.mu.Lock()
	stopGuard, guardDone := l.stopGuard, l.guardDone
	stopMarks, marksDone := l.stopMarks, l.marksDone
	l.mu.Unlock()
	if mon != nil {
		mon.Close()
	}
	if stopGuard != nil {
		stopGuard()
		<-guardDone
	}
	if stopMarks != nil {
		stopMarks()
		<-marksDone
	}
	return mon
}
