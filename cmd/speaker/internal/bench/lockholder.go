package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// LockBaseline is the row every case is compared with: go-zookeeper's own
// zk.Lock, a lock recipe with predecessor watches that confirms nothing. Its
// holder leaves by Unlock (a delete), and its successor's Lock returns
// after one request, a listing of the children; then it appends a line and
// fsyncs it, as a speaker's first line is. Its session is closed after the
// failover is counted, which a program would have to do too: a second
// write, off the path.
func LockBaseline() Case {
	return Case{Election: "zk.Lock", Watch: "-", locker: func(rz *recoverable.RecoverableZookeeper, path, _ string, _ *slog.Logger) locker {
		return zkLocker{zk.NewLock(rz.Conn(), path, zk.WorldACL(zk.PermAll))}
	}}
}

// RecipeLock is our own lock (recipes/lock, what `zklock` runs on): the
// same recipe as the sequential election, so its handover is measured the
// same way as zk.Lock's, beside it. Unlike zk.Lock, its Lock returns only
// once the holder has proved it holds the lock, and hands over the epoch
// that the line carries.
func RecipeLock() Case {
	return Case{Election: "lock", Watch: "-", locker: func(rz *recoverable.RecoverableZookeeper, path, name string, log *slog.Logger) locker {
		return recipeLocker{lock.New(rz, path, name, lock.WithLogger(log))}
	}}
}

// locker is a lock as a program holds it: lock blocks until it is held, or
// until the session is closed; unlock is the graceful exit. unlock is not
// called while lock runs: zk.Lock's fields are not safe for that.
type locker interface {
	lock(ctx context.Context) (epoch int64, err error)
	unlock()
}

type zkLocker struct{ l *zk.Lock }

// lock ignores ctx: zk.Lock takes none. Closing the session ends it.
func (z zkLocker) lock(context.Context) (int64, error) { return 0, z.l.Lock() }
func (z zkLocker) unlock()                             { _ = z.l.Unlock() }

type recipeLocker struct{ l *lock.Lock }

func (r recipeLocker) lock(ctx context.Context) (int64, error) {
	if err := r.l.Lock(ctx); err != nil {
		return 0, err
	}
	return r.l.Epoch(), nil
}
func (r recipeLocker) unlock() { r.l.Unlock() }

// lockHolder is one contender of a lock's row: a goroutine blocked in
// lock until it holds the lock, then one fsynced line.
type lockHolder struct {
	rz    *recoverable.RecoverableZookeeper
	lock  locker
	name  string
	file  *os.File
	lines chan<- firstLine

	locked atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the lock goroutine has ended
	once   sync.Once
}

func newLockHolder(rz *recoverable.RecoverableZookeeper, l locker, name, out string, lines chan<- firstLine) (*lockHolder, error) {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	h := &lockHolder{rz: rz, lock: l, name: name, file: f, lines: lines, done: make(chan struct{})}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	go h.run()
	return h, nil
}

// run waits for the lock, as a program using it would, and writes.
func (h *lockHolder) run() {
	defer close(h.done)
	epoch, err := h.lock.lock(h.ctx)
	if err != nil {
		return
	}
	decided := h.rz.Traffic()
	line := fmt.Sprintf("%s %s 1 epoch=%d\n", time.Now().Format(time.RFC3339Nano), h.name, epoch)
	if _, err := h.file.WriteString(line); err != nil {
		return
	}
	if err := h.file.Sync(); err != nil {
		return
	}
	h.locked.Store(true)
	report(h.ctx, h.lines, firstLine{at: time.Now(), who: h, decided: decided})
}

func (h *lockHolder) leads() bool                                { return h.locked.Load() }
func (h *lockHolder) session() *recoverable.RecoverableZookeeper { return h.rz }

// leave is Unlock: the delete of the holder's znode.
func (h *lockHolder) leave() { h.lock.unlock() }

// close ends the session first, which ends a lock still waiting, then
// unlocks what is left (our lock's goroutines; its znode went with the
// session).
func (h *lockHolder) close() {
	h.once.Do(func() {
		h.cancel()
		h.rz.Close()
		<-h.done
		h.lock.unlock()
		_ = h.file.Close()
	})
}
