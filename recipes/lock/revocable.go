package lock

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// Revocable makes a holder honour revoke requests (Revoke): it watches its
// znode for a mark once it holds, and Revoked closes when one comes; the
// holder should then finish its work and Unlock. Revocation asks; it
// cannot force.
func Revocable() Option { return func(o *options) { o.revocable, o.marks = true, true } }

// Irrevocable makes a holder watch for revoke requests only to refuse
// them: it logs each one, and holds on. A holder made with neither option
// does not watch for them (it saves the read, after it holds, that
// watching costs), and a request goes unseen.
func Irrevocable() Option { return func(o *options) { o.revocable, o.marks = false, true } }

// Revoked is closed when a Revocable holder is asked to let go: a revoke
// mark is on its znode, set by Revoke (or by hand, with zkCli.sh). It
// stays open for a holder made without Revocable, and for a request that
// comes after the lock was lost or released. Revoked asks the holder to
// Unlock; the lock is its own until it does.
func (l *Lock) Revoked() <-chan struct{} { return l.revoked }

// startMarks starts the goroutine that watches the holder's znode for a
// revoke mark. Release stops it and waits for it. The caller holds l.mu.
func (l *Lock) startMarks(node string) {
	if !l.marks {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.stopMarks, l.marksDone = cancel, make(chan struct{})
	go l.watchMarks(ctx, node, l.marksDone)
}

// watchMarks reads our znode's data, and again at each change, until it
// finds a mark, the znode is gone, or the lock ends. The engine watches
// the same znode for its delete; ZooKeeper keeps one watch per session
// and path, so this costs a read, not a second watch, and the mark's
// notification wakes the engine too, which finds it still holds.
func (l *Lock) watchMarks(ctx context.Context, node string, done chan<- struct{}) {
	defer close(done)
	for {
		data, _, wake, err := l.rz.GetW(ctx, node)
		if errors.Is(err, zk.ErrNoNode) || ctx.Err() != nil {
			return // gone: the engine reports the lock lost
		}
		var again <-chan time.Time
		if err != nil {
			// Try again after a pause, unless the lock ends first.
			again = time.After(l.rz.SessionTimeout() / 10)
			l.rz.Logger().Debug("could not read our znode for a revoke mark; reading again soon", "znode", node, "error", err)
		} else if _, by, marked := ReadMark(data); marked {
			l.revokeRequested(node, by)
			return
		}
		select {
		case <-wake:
		case <-again:
		case <-l.h.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// revokeRequested tells the holder of a revoke request: a Revocable one
// through Revoked, any other only in the log.
func (l *Lock) revokeRequested(node, by string) {
	log := l.rz.Logger()
	if !l.revocable {
		log.Warn("asked to let go of the lock (revoke requested), but this holder is not revocable: holding on", "by", by, "znode", node)
		return
	}
	log.Info("asked to let go of the lock (revoke requested): letting go", "by", by, "znode", node)
	close(l.revoked)
}
