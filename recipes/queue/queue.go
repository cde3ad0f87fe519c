// Package queue is the distributed queue of ZooKeeper's recipes page: a
// producer puts an item as a persistent sequential child of the queue's
// znode P, and a consumer takes the child with the lowest sequence number.
// The sequence numbers order the puts, so the queue is first in, first
// out. A priority, written into the name before the sequence number
// (item-RRR-SSSSSSSSSS), makes it a priority queue with the same rule: the
// sorted names are the order in which items are taken.
//
// What the page leaves out, this package settles: a put or a take whose
// reply was lost. Every handle writes through a ledger of its own, a
// znode whose version counts the handle's writes; each put and each take
// is one multi that also bumps the ledger at the version the handle
// expects. A multi can then apply at most once, and after a lost reply
// the ledger's version says whether it did (see ledger.go). Delivery is
// chosen per handle (Delivery): AtMostOnce deletes the item as it takes
// it; AtLeastOnce claims it with an ephemeral znode and deletes it on Ack,
// so that an item whose consumer dies comes back. See README.md.
package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrClosed is returned by a Queue's calls after Close.
var ErrClosed = errors.New("queue: closed")

// ErrUnsettled means a write's reply was lost and its outcome is not known.
// Either the context ended before the ledger could say whether it applied
// (the next call on the Queue, or Close, settles it and logs the answer),
// or the ledger was reaped while the handle was away past its grace, and
// nothing else can tell (an Ack whose item is still there is ErrClaimLost
// instead). The caller must not assume either outcome.
var ErrUnsettled = errors.New("queue: outcome unknown until the ledger is read")

// ErrClaimLost means an AtLeastOnce item's claim ended before Ack: the
// session that held it expired, so the item went back to the queue and
// another consumer may take it. Nothing was deleted: the Ack did not go
// in, as its marker was gone, or its ledger was and the item is still
// there.
var ErrClaimLost = errors.New("queue: the claim on the item was lost; it is back in the queue")

// ErrInvalid is wrapped by every error about an argument (a priority out
// of range); see InvalidError.
var ErrInvalid = errors.New("queue: invalid argument")

// InvalidError is a bad argument, naming it in Field.
type InvalidError struct {
	Field   string // "priority"
	Problem string // in words
}

// Error names the field, then the problem.
func (e *InvalidError) Error() string { return "queue: " + e.Field + ": " + e.Problem }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Queue is one handle on the queue at a path, on one session: a producer,
// a consumer or both. Its calls may be made from several goroutines; they
// write one at a time, as each write moves the handle's ledger.
type Queue struct {
	rz     *recoverable.RecoverableZookeeper
	path   string
	opts   options
	acl    []zk.ACL
	log    *slog.Logger
	ledger *ledger

	mu     sync.Mutex // held by every write, and by Close
	closed bool

	stopReaper context.CancelFunc
	reaped     chan struct{} // closed when the reaper's goroutine ended
	// held are the items whose claims this handle holds (AtLeastOnce):
	// a claim create that finds our own session's claim found one of
	// these, not the answer to a lost reply, unless the item is not here.
	held map[string]bool
}

// New opens the queue at path on rz's session, creating its znode and the
// handle's ledger. The znodes carry the session's ACL, and it logs to the
// session's logger. Close deletes the ledger. While it is open, the handle
// also deletes the ledgers of handles gone for good (reaper.go).
func New(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string, opts ...Option) (*Queue, error) {
	if err := recoverable.ValidatePath("path", path); err != nil {
		return nil, err
	}
	o := options{delivery: AtMostOnce}
	for _, opt := range opts {
		opt(&o)
	}
	q := &Queue{rz: rz, path: path, opts: o, acl: rz.ACL(), log: rz.Logger().With("queue", path), held: map[string]bool{}}
	if err := rz.EnsurePath(ctx, path+"/"+ledgersDir, q.acl); err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", path, err)
	}
	l, err := openLedger(ctx, rz, path+"/"+ledgersDir, q.acl, q.log)
	if err != nil {
		return nil, fmt.Errorf("queue: open %s: %w", path, err)
	}
	q.ledger = l
	rctx, stop := context.WithCancel(context.Background())
	q.stopReaper, q.reaped = stop, make(chan struct{})
	go q.reap(rctx, q.reaped)
	return q, nil
}

// Path returns the queue's znode path.
func (q *Queue) Path() string { return q.path }

// Delivery returns the handle's delivery mode.
func (q *Queue) Delivery() Delivery { return q.opts.delivery }

// Close settles a write left unknown, then deletes the handle's ledger and
// its session's marker. Items, and claims not yet acknowledged, stay: a
// claim ends with the session. It is idempotent.
func (q *Queue) Close(ctx context.Context) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil
	}
	q.closed = true
	q.stopReaper()
	<-q.reaped
	return q.ledger.remove(ctx)
}

// item returns the znode path of the item called name.
func (q *Queue) item(name string) string { return q.path + "/" + name }

// begin takes the write lock, settles a write left unknown before, and
// marks the ledger for the session held now.
func (q *Queue) begin(ctx context.Context) (end func(), err error) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil, ErrClosed
	}
	if err := q.ledger.ready(ctx); err != nil {
		q.mu.Unlock()
		return nil, err
	}
	return q.mu.Unlock, nil
}
