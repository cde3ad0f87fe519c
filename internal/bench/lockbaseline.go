package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

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
	return Case{Election: "zk.Lock", Watch: "-", baseline: true}
}

// lockHolder is one contender for the baseline: a goroutine blocked in
// zk.Lock's Lock until it holds the lock, then one fsynced line.
type lockHolder struct {
	rz    *recoverable.RecoverableZookeeper
	lock  *zk.Lock
	file  *os.File
	lines chan<- firstLine

	locked atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the Lock goroutine has ended
	once   sync.Once
}

func newLockHolder(rz *recoverable.RecoverableZookeeper, out, path string, lines chan<- firstLine) (*lockHolder, error) {
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	h := &lockHolder{rz: rz, lock: zk.NewLock(rz.Conn(), path, zk.WorldACL(zk.PermAll)), file: f, lines: lines, done: make(chan struct{})}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	go h.run()
	return h, nil
}

// run waits for the lock, as a program using zk.Lock would, and writes.
// Closing the session makes a waiting Lock return an error.
func (h *lockHolder) run() {
	defer close(h.done)
	if err := h.lock.Lock(); err != nil {
		return
	}
	decided := h.rz.Traffic()
	line := fmt.Sprintf("%s %s 1 epoch=0\n", time.Now().Format(time.RFC3339Nano), "zk.Lock")
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

// leave is Unlock: the delete of the lock znode.
func (h *lockHolder) leave() { _ = h.lock.Unlock() }

func (h *lockHolder) close() {
	h.once.Do(func() {
		h.cancel()
		h.rz.Close()
		<-h.done
		_ = h.file.Close()
	})
}
