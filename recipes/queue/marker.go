package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// A ledger is needed while its handle may still ask it about a write, and
// the handle outlives its sessions: a reply lost just before an expiry is
// settled on the next session. So the ledger is persistent, and each
// session of the handle marks it with an ephemeral child named after the
// session. While a marker stands, the handle lives, and no reaper deletes
// the ledger: ZooKeeper refuses to delete a znode with children. A marker
// is made in a multi with the ledger's step (write), so that a handle
// coming back moves the version, and a reaper's delete at the version it
// saw without a marker fails: it was not without one all along.

// ready settles a write left unknown, and marks the ledger for the session
// held now: every write begins so.
func (l *ledger) ready(ctx context.Context) error {
	if err := l.settleLeftover(ctx); err != nil {
		return err
	}
	for l.rz.SessionID() == 0 || l.rz.SessionID() != l.markerSession {
		err := l.mark(ctx)
		if errors.Is(err, errSessionMoved) {
			continue // marked for a session that ended meanwhile
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mark makes the marker of the session held now. A ledger found gone was
// reaped while our session was gone (nothing is left unsettled by then:
// settleLeftover ran first), and a new one takes its place.
func (l *ledger) mark(ctx context.Context) error {
	if err := l.rz.WaitConnected(ctx); err != nil {
		return err
	}
	sid := l.rz.SessionID()
	p := fmt.Sprintf("%s/%x", l.path, sid)
	_, err := l.write(ctx, &zk.CreateRequest{Path: p, Acl: l.acl, Flags: zk.FlagEphemeral})
	switch {
	case errors.Is(err, zk.ErrNoNode) || errors.Is(err, errLedgerGone):
		l.log.Info("our ledger was reaped while our session was gone; making a new one", "ledger", l.path)
		if err := l.create(ctx); err != nil {
			return err
		}
		return errSessionMoved // mark the new one
	case err != nil && !errors.Is(err, zk.ErrNodeExists):
		return err
	}
	ok, st, err := l.rz.Exists(ctx, p)
	if err != nil {
		return err
	}
	if !ok || st.EphemeralOwner != sid {
		// The session changed between the name and the create: the
		// marker would stand for the wrong one. Try again on the new.
		if ok {
			_ = l.rz.DeleteOwn(ctx, p, -1, st.EphemeralOwner)
		}
		return errSessionMoved
	}
	l.marker, l.markerSession = p, sid
	return nil
}

// sessionMarker returns the marker of the session held now and that
// session, as ready left them.
func (l *ledger) sessionMarker() (string, int64, error) {
	if sid := l.rz.SessionID(); sid == 0 || sid != l.markerSession {
		return "", 0, errSessionMoved
	}
	return l.marker, l.markerSession, nil
}

// errSessionMoved asks for the marking (ready), or a take, to start again
// on the new session; it never leaves the package.
var errSessionMoved = errors.New("queue: the session changed while marking or claiming")

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
