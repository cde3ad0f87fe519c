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
	return Case{Election: "zk.Lock", Watch: "-", locker: func(rz *recoverable.RecoverableZookeeper, path, _ string) locker {
		return zkLocker{zk.NewLock(rz.Conn(), path, zk.WorldACL(zk.PermAll))}
	}}
}

// RecipeLock is our own lock (recipes/lock, what `zklock` runs on): the
// same recipe as the sequential election, so its handover is measured the
// same way as zk.Lock's, beside it. Unlike zk.Lock, its Lock returns only
// once the holder has proved it holds the lock, and hands over the epoch
// that the line carries.
func RecipeLock() Case {
	return Case{Election: "lock", Watch: "-", locker: func(rz *recoverable.RecoverableZookeeper, path, name string) locker {
		return recipeLocker{lock.New(rz, path, name)}
	}}
}

// locker is a lock as a program holds it: lock blocks until it is held, or
// until the session is closed; unlock is the graceful exit. unlock is not
// called while lock runs: zk.Lock's fields are not safe for that.
type locker interface {
	lock(ctx context.Context) (epoch int64, err error)
	unlock()
	// elected says that the lock runs on our election engine: it logs
	// its decision, and then its holder watches its own znode.
	elected() bool
}

type zkLocker struct{ l *zk.Lock }

// lock ignores ctx: zk.Lock takes none. Closing the session ends it.
func (z zkLocker) lock(context.Context) (int64, error) { return 0, z.l.Lock() }
func (z zkLocker) unlock()                             { _ = z.l.Unlock() }
func (z zkLocker) elected() bool                       { return false }

type recipeLocker struct{ l *lock.Lock }

func (r recipeLocker) lock(ctx context.Context) (int64, error) {
	if err := r.l.Lock(ctx); err != nil {
		return 0, err
	}
	return r.l.Epoch(), nil
}
func (r recipeLocker) unlock()       { _ = r.l.Unlock(context.Background()) }
func (r recipeLocker) elected() bool { return true }

// lockHolder is one contender of a lock's row: a goroutine blocked in
// lock until it holds the lock, then one fsynced line.
type lockHolder struct {
	rz    *recoverable.RecoverableZookeeper
	lock  locker
	name  string
	file  *os.File
	lines chan<- firstLine
	// decided is the traffic at our lock's decision (see decisionLog).
	decided atomic.Pointer[recoverable.Traffic]

	locked atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the lock goroutine has ended
	once   sync.Once
}

// newLockHolder makes a contender of the lock at path with newLocker, on a
// session that connect opens with the log it is given, and sets it waiting
// for the lock. Our lock's election logs to its session's logger, so the
// session is given the decisionLog that notes its decision.
func newLockHolder(connect func(log *slog.Logger) (*recoverable.RecoverableZookeeper, error),
	newLocker func(rz *recoverable.RecoverableZookeeper, path, name string) locker,
	path, name, out string, lines chan<- firstLine, log *slog.Logger) (*lockHolder, error) {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	h := &lockHolder{name: name, file: f, lines: lines, done: make(chan struct{})}
	rz, err := connect(slog.New(decisionLog{Handler: handlerOf(log), holder: h}))
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	h.rz = rz
	h.lock = newLocker(rz, path, name)
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
	// zk.Lock sends nothing once it has decided. Our lock's engine sets
	// the holder's watch on its own znode as soon as Lock hands the lock
	// over, maybe before Lock's caller runs again: its decision is the
	// moment it logged.
	decided := h.rz.Traffic()
	if h.lock.elected() {
		d := h.decided.Load()
		if d == nil {
			report(h.ctx, h.lines, firstLine{at: time.Now(), who: h,
				err: fmt.Errorf("our lock's holder did not log %q: its decision cannot be counted", becameLeader)})
			return
		}
		decided = *d
	}
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

// idle: a waiter has set its watch on its predecessor, our lock's holder
// its watch on its own znode; zk.Lock's holder watches nothing, and is done
// once it has written its line.
func (h *lockHolder) idle(t recoverable.Traffic) bool {
	return t.InFlight == 0 && (t.WatchesSinceEvent > 0 || h.locked.Load() && !h.lock.elected())
}

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

// becameLeader is the line our election engine logs at its decision to
// lead, before it tells the listener (internal/election).
const becameLeader = "became leader"

// decisionLog is the log of a lock holder's session, and so of our lock's
// election engine. It notes the session's traffic when the engine logs its
// decision to lead: then, on any schedule, the successor has sent all that
// its decision waited for, and nothing after it. Every record goes on to
// Handler, as it would without the note. The holder's session is set
// before its lock starts, so before the engine can decide.
type decisionLog struct {
	slog.Handler
	holder *lockHolder
}

// Enabled lets the engine's info lines through whatever the level of the
// log behind, for the decision's.
func (d decisionLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l == slog.LevelInfo || d.Handler.Enabled(ctx, l)
}

// Handle notes the traffic at the decision, and passes r on.
func (d decisionLog) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == becameLeader {
		t := d.holder.rz.Traffic()
		d.holder.decided.CompareAndSwap(nil, &t)
	}
	if !d.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return d.Handler.Handle(ctx, r)
}

// WithAttrs and WithGroup keep the note under the engine's own attributes.
func (d decisionLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	d.Handler = d.Handler.WithAttrs(attrs)
	return d
}

func (d decisionLog) WithGroup(name string) slog.Handler {
	d.Handler = d.Handler.WithGroup(name)
	return d
}

// handlerOf is log's handler; without a log, the default one.
func handlerOf(log *slog.Logger) slog.Handler {
	if log == nil {
		return slog.Default().Handler()
	}
	return log.Handler()
}
