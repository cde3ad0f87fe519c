package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

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
type ledger struct {
	rz      *recoverable.RecoverableZookeeper
	path    string
	acl     []zk.ACL
	log     *slog.Logger
	version int32 // the ledger's version now, as the next write expects it

	// unsettled: a write's outcome is unknown, as its context ended
	// before the ledger could be read; the next write reads it first.
	unsettled bool

	// marker is the ephemeral znode that stands for our session, in the
	// multi of an AtLeastOnce Ack: if the session ended, so did it.
	marker        string
	markerSession int64
}

// openLedger creates the ledger under dir, named with a GUID, so that a
// create that meets node-exists after a lost reply met our own.
func openLedger(ctx context.Context, rz *recoverable.RecoverableZookeeper, dir string, acl []zk.ACL, log *slog.Logger) (*ledger, error) {
	name, err := recoverable.NewProtectedName("ledger")
	if err != nil {
		return nil, err
	}
	l := &ledger{rz: rz, path: dir + "/" + name, acl: acl, log: log}
	if _, err := rz.Create(ctx, l.path, nil, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return nil, err
	}
	return l, nil
}

// write sends ops and the ledger's step as one multi, and says whether it
// applied: nil, or the refusal of the op that failed it (an item already
// gone). The answers to ops come back when the reply did; after a lost
// reply it reads the ledger, and they are nil. A context that ends first
// leaves the write unsettled (ErrUnsettled).
func (l *ledger) write(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	all := append(ops, &zk.SetDataRequest{Path: l.path, Version: l.version})
	res, err := l.rz.Multi(ctx, all...)
	if err == nil {
		l.version++
		return res, nil
	}
	if !unknown(err) {
		if _, isLedger := culprit(res, err, len(ops)); isLedger {
			return nil, fmt.Errorf("queue: ledger %s moved under us (another process with its name?): %w", l.path, err)
		}
		cause, _ := culprit(res, err, len(ops))
		return nil, cause
	}
	applied, serr := l.settle(ctx)
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
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnsettled, err)
	}
	l.unsettled = false
	l.log.Info("settled the write left unknown", "applied", applied, "ledger", l.path)
	return nil
}

// sessionMarker returns the marker of the session held now, creating it
// once per session, and that session.
func (l *ledger) sessionMarker(ctx context.Context) (string, int64, error) {
	sid := l.rz.SessionID()
	if sid != 0 && sid == l.markerSession {
		return l.marker, sid, nil
	}
	p := fmt.Sprintf("%s.%x", l.path, sid)
	if _, err := l.rz.CreateEphemeral(ctx, p, nil, l.acl); err != nil {
		return "", 0, err
	}
	ok, st, err := l.rz.Exists(ctx, p)
	if err != nil {
		return "", 0, err
	}
	if !ok || st.EphemeralOwner != sid {
		// The session changed between the name and the create: the
		// marker would stand for the wrong one. Try again on the new.
		if ok {
			_ = l.rz.DeleteOwn(ctx, p, -1, st.EphemeralOwner)
		}
		return "", 0, errSessionMoved
	}
	l.marker, l.markerSession = p, sid
	return p, sid, nil
}

// errSessionMoved asks a take to start again on the new session.
var errSessionMoved = errors.New("queue: the session changed while claiming")

// remove settles, then deletes the session's marker and the ledger.
func (l *ledger) remove(ctx context.Context) error {
	if err := l.settleLeftover(ctx); err != nil {
		return err
	}
	if l.marker != "" {
		if err := l.rz.DeleteOwn(ctx, l.marker, -1, l.markerSession); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("queue: close: %w", err)
		}
	}
	if err := l.rz.Delete(ctx, l.path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("queue: close: %w", err)
	}
	return nil
}
