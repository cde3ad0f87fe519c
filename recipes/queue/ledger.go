package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ledgersDir is the child of the queue's znode that holds the handles'
// ledgers; it is the one child that is not an item.
const ledgersDir = "ledgers"

// A create or a delete whose reply is lost may or may not have happened,
// and an item's znode cannot tell: a put's item may be taken by a consumer
// before its producer looks, and a take's delete may be another taker's.
// The ledger is a persistent znode of the handle's own whose data version
// counts its writes. Every put and every take is one multi that also sets
// the ledger at the version the handle expects, so that the multi applies
// at most once however often it is sent, and after a lost reply the
// ledger's version says whether it applied: one more, it did; the same, it
// did not. (The sequence recipe settles its lost writes the same way, by
// a token in the data it writes.)
//
// The ledger must outlive a session of the handle (a reply lost just
// before an expiry is settled on the next session), and must not outlive
// the handle: each session of the handle keeps an ephemeral marker under
// it (marker.go), and a ledger without one for a grace of its owner's
// session timeout is deleted by any other handle (reaper.go).
type ledger struct {
	rz      *recoverable.RecoverableZookeeper
	dir     string
	path    string
	acl     []zk.ACL
	log     *slog.Logger
	version int32  // the ledger's version now, as the next write expects it
	grace   []byte // its data: our session timeout in ms, the reapers' grace

	// current is path, for the reaper's goroutine to spare.
	current atomic.Pointer[string]

	// unsettled: a write's outcome is unknown, as its context ended
	// before the ledger could be read; the next write reads it first.
	unsettled bool

	// marker is the ephemeral znode under the ledger that stands for our
	// session: reapers spare the ledger while it stands, and an
	// AtLeastOnce Ack checks it: if the session ended, so did it.
	marker        string
	markerSession int64
}

// errLedgerGone means our ledger was deleted: a reaper found it without a
// marker for its grace, as our session had ended and we had not come back.
var errLedgerGone = errors.New("queue: our ledger was reaped while our session was gone")

// openLedger creates a ledger under dir, named with a GUID, so that a
// create that meets node-exists after a lost reply met our own, and marks
// it for the session held once that is done: a session that ends while
// the handle opens is an ordinary fault, marked past as every write does.
func openLedger(ctx context.Context, rz *recoverable.RecoverableZookeeper, dir string, acl []zk.ACL, log *slog.Logger) (*ledger, error) {
	l := &ledger{rz: rz, dir: dir, acl: acl, log: log}
	if err := l.create(ctx); err != nil {
		return nil, err
	}
	return l, l.ready(ctx)
}

// create makes a new ledger znode, at version 0, carrying our grace.
func (l *ledger) create(ctx context.Context) error {
	name, err := recoverable.NewProtectedName("ledger")
	if err != nil {
		return err
	}
	p := l.dir + "/" + name
	l.grace = []byte(strconv.FormatInt(l.rz.SessionTimeout().Milliseconds(), 10))
	if _, err := l.rz.Create(ctx, p, l.grace, l.acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	l.path, l.version, l.marker, l.markerSession = p, 0, "", 0
	l.current.Store(&p)
	return nil
}

// write sends ops and the ledger's step as one multi, and says whether it
// applied: nil, or the refusal of the op that failed it (an item already
// gone). The answers to ops come back when the reply did; after a lost
// reply it reads the ledger, and they are nil. A context that ends first
// leaves the write unsettled (ErrUnsettled).
func (l *ledger) write(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	all := append(ops, &zk.SetDataRequest{Path: l.path, Data: l.grace, Version: l.version})
	res, err := l.rz.Multi(ctx, all...)
	if err == nil {
		l.version++
		return res, nil
	}
	if !unknown(err) {
		cause, isLedger := culprit(res, err, len(ops))
		switch {
		case isLedger && errors.Is(cause, zk.ErrNoNode):
			l.markerSession = 0 // the next call makes a new ledger
			return nil, fmt.Errorf("%w: %s", errLedgerGone, l.path)
		case isLedger:
			return nil, fmt.Errorf("queue: ledger %s moved under us (another process with its name?): %w", l.path, err)
		}
		return nil, cause
	}
	applied, serr := l.settle(ctx)
	if errors.Is(serr, errLedgerGone) {
		// Only a session that ended, and a handle away for longer than
		// its grace after that, lose the answer: never guessed.
		l.markerSession = 0
		l.log.Warn("a write's reply was lost and our ledger was reaped while our session was gone: the ledger cannot say whether it went in", "ledger", l.path, "error", err)
		return nil, fmt.Errorf("%w: %w", ErrUnsettled, serr)
	}
	if serr != nil {
		l.unsettled = true
		return nil, fmt.Errorf("%w: %w (reading the ledger: %w)", ErrUnsettled, err, serr)
	}
	if applied {
		l.log.Info("a write whose reply was lost had gone in: the ledger moved on", "ledger", l.path, "error", err)
		return nil, nil
	}
	l.log.Info("a write whose reply was lost had not gone in: the ledger did not move", "ledger", l.path, "error", err)
	if errors.Is(err, recoverable.ErrRetried) {
		cause, _ := culprit(res, err, len(ops)) // the retry's own answer
		return nil, cause
	}
	return nil, err
}

// unknown reports whether a multi that failed with err may have applied.
func unknown(err error) bool {
	return errors.Is(err, recoverable.ErrRetried) || recoverable.IsRetryable(err) ||
		errors.Is(err, recoverable.ErrRetriesExhausted) || errors.Is(err, recoverable.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// culprit returns the error of the op that failed a multi of n ops and the
// ledger's step, and whether it was the step. The server fails every op of
// a failed multi, the others with OK or "runtime inconsistency", which
// go-zookeeper knows no name for.
func culprit(res []zk.MultiResponse, err error, n int) (error, bool) {
	for i, r := range res {
		if r.Error != nil && !strings.HasPrefix(r.Error.Error(), "unknown error") {
			return r.Error, i == n
		}
	}
	return err, false
}

// settle reads the ledger from the leader's point of view and says whether
// the last write applied.
func (l *ledger) settle(ctx context.Context) (bool, error) {
	if err := l.rz.Sync(ctx, l.path); err != nil {
		return false, err
	}
	_, st, err := l.rz.Get(ctx, l.path)
	if errors.Is(err, zk.ErrNoNode) {
		return false, fmt.Errorf("%w: %s", errLedgerGone, l.path)
	}
	if err != nil {
		return false, err
	}
	switch st.Version {
	case l.version + 1:
		l.version++
		return true, nil
	case l.version:
		return false, nil
	}
	return false, fmt.Errorf("queue: ledger %s at version %d, expected %d or %d", l.path, st.Version, l.version, l.version+1)
}

// settleLeftover settles a write whose outcome an earlier call could not
// learn, and logs it.
func (l *ledger) settleLeftover(ctx context.Context) error {
	if !l.unsettled {
		return nil
	}
	applied, err := l.settle(ctx)
	if errors.Is(err, errLedgerGone) {
		l.unsettled, l.markerSession = false, 0
		l.log.Warn("our ledger was reaped while our session was gone: whether the write left unknown went in will never be known", "ledger", l.path)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnsettled, err)
	}
	l.unsettled = false
	l.log.Info("settled the write left unknown", "applied", applied, "ledger", l.path)
	return nil
}
