package recoverable

import (
	"context"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// ZooKeeper's opcodes for the requests a pipeline sends.
const (
	opCreate       = 1
	opExists       = 3
	opSync         = 9
	opGetChildren2 = 12
)

// writeWaiters lets a caller learn when a request with a given opcode has
// been handed to the socket. go-zookeeper has one goroutine that writes
// requests in the order they were queued, so a request queued after that
// moment reaches the server after it: the way to pipeline without an async
// API.
type writeWaiters struct {
	mu      sync.Mutex
	waiting map[int32][]chan struct{}
}

// wait returns a channel closed when the next request with opcode op is
// written; cancel forgets it.
func (w *writeWaiters) wait(op int32) (written <-chan struct{}, cancel func()) {
	ch := make(chan struct{})
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == nil {
		w.waiting = map[int32][]chan struct{}{}
	}
	w.waiting[op] = append(w.waiting[op], ch)
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, c := range w.waiting[op] {
			if c == ch {
				w.waiting[op] = append(w.waiting[op][:i], w.waiting[op][i+1:]...)
				return
			}
		}
	}
}

// wrote is called by serverConn for every request it writes.
func (w *writeWaiters) wrote(op int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ch := range w.waiting[op] {
		close(ch)
	}
	delete(w.waiting, op)
}

// pipeline sends first and, as soon as a request with opcode op is on the
// wire, second (opcode secondOp), without waiting for first's answer. A
// session's requests are served in the order they arrive, so second sees
// everything first did, and the pair costs one round trip instead of two.
// Traffic counts it so even when a busy scheduler lets first's answer in
// before second leaves: second never waited for it. Neither is retried: a
// pipeline is only worth anything fast. When first fails before it was
// written, second is not sent.
func pipeline[T any](ctx context.Context, r *RecoverableZookeeper, op, secondOp int32, first func() error, second func() (T, error)) (v T, firstErr, secondErr error) {
	if err := r.ready(ctx); err != nil {
		return v, err, err
	}
	written, cancel := r.writes.wait(op)
	defer cancel()
	// Each call on a goroutine of its own, awaited here: no more hops
	// between an answer and the caller than one call has.
	firstDone := async(func() (struct{}, error) { return struct{}{}, first() })
	select {
	case <-written:
	case res := <-firstDone:
		return v, res.err, res.err // over before we saw it leave: nothing to pipeline behind
	case <-ctx.Done():
		abandon(r, firstDone) // maybe not even queued yet: Settle waits for it
		return v, ctx.Err(), ctx.Err()
	case <-r.quit:
		return v, ErrClosed, ErrClosed
	}
	unjoin := r.traffic.join(secondOp)
	v, secondErr = await(ctx, r, async(second))
	unjoin()
	_, firstErr = await(ctx, r, firstDone)
	return v, firstErr, secondErr
}

// freshRead runs read so that its answer is as fresh as a write's: right
// behind a sync, in one round trip, or alone when the server is standalone
// and has no leader to catch up with (see serverMode). A nil syncErr
// proves that the session was alive at the ZooKeeper leader, or the
// standalone server, after sent, the moment just before the request left.
// Neither is retried: a fresh read is only worth anything fast.
func freshRead[T any](ctx context.Context, r *RecoverableZookeeper, path string, readOp int32, read func() (T, error)) (v T, sent time.Time, syncErr, err error) {
	sent = time.Now()
	if gen, mode := r.serverMode.current(); mode == "standalone" {
		v, err = call(ctx, r, read)
		switch {
		case err != nil:
			syncErr = err
		case !r.serverMode.still(gen):
			syncErr = ErrReconnected
		}
		return v, sent, syncErr, err
	}
	v, syncErr, err = pipeline(ctx, r, opSync, readOp,
		func() error { _, err := r.conn.Sync(path); return err }, read)
	return v, sent, syncErr, err
}

// Listing is what SyncChildren read: the children, and the sync's proof
// in front of them.
type Listing struct {
	Children []string
	// Sent is when the sync left; a nil SyncErr proves that the session
	// was alive at the ZooKeeper leader after it.
	Sent    time.Time
	SyncErr error
}

// SyncChildren lists path's children as freshly as a sync would make them,
// in one round trip (freshRead). Its error is the listing's; the sync's is
// the Listing's SyncErr.
func (r *RecoverableZookeeper) SyncChildren(ctx context.Context, path string) (Listing, error) {
	children, sent, syncErr, err := freshRead(ctx, r, path, opGetChildren2,
		func() ([]string, error) { c, _, err := r.conn.Children(path); return c, err })
	return Listing{Children: children, Sent: sent, SyncErr: wrap("sync", path, syncErr)}, wrap("children", path, err)
}

// existence is what an exists answers.
type existence struct {
	ok   bool
	stat *zk.Stat
	wake <-chan zk.Event
}

// SyncExists is an exists of path as fresh as a sync would make it, in one
// round trip (freshRead): what a leader asks before each line under
// at-most-one. It fails if the proof does.
func (r *RecoverableZookeeper) SyncExists(ctx context.Context, path string) (ok bool, stat *zk.Stat, sent time.Time, err error) {
	e, sent, syncErr, err := freshRead(ctx, r, path, opExists,
		func() (existence, error) { ok, st, err := r.conn.Exists(path); return existence{ok: ok, stat: st}, err })
	switch {
	case err != nil:
		return false, nil, sent, wrap("exists", path, err)
	case syncErr != nil:
		return false, nil, sent, wrap("sync", path, syncErr)
	}
	return e.ok, e.stat, sent, nil
}

// CreateEphemeralExistsW creates the ephemeral znode path and sets a watch
// on it, in one round trip: the single-file race. The stat says who holds
// the znode after our create, whether it made it (createErr nil) or not
// (zk.ErrNodeExists); it is nil if the znode is gone again already, and the
// watch then fires when it comes back. A create that succeeded proves the
// session alive at the ZooKeeper leader after sent. Neither is retried; a
// lost reply leaves createErr retryable for the caller to settle
// (CreateEphemeral does).
func (r *RecoverableZookeeper) CreateEphemeralExistsW(ctx context.Context, path string, data []byte, acl []zk.ACL) (Race, error) {
	sent := time.Now()
	e, createErr, err := pipeline(ctx, r, opCreate, opExists,
		func() error { _, err := r.conn.Create(path, data, zk.FlagEphemeral, acl); return err },
		func() (existence, error) {
			ok, st, w, err := r.conn.ExistsW(path)
			return existence{ok, st, w}, err
		})
	if err == nil && !e.ok {
		e.stat = nil
	}
	return Race{Stat: e.stat, Wake: e.wake, Sent: sent, CreateErr: wrap("create", path, createErr)}, wrap("exists", path, err)
}

// Race is what CreateEphemeralExistsW saw: who holds the znode after our
// create (nil: nobody, and Wake fires when someone does), the watch, when
// the create left, and the create's own error (nil: it made the znode;
// zk.ErrNodeExists: someone else holds it).
type Race struct {
	Stat      *zk.Stat
	Wake      <-chan zk.Event
	Sent      time.Time
	CreateErr error
}
