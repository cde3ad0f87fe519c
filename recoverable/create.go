package recoverable

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-zookeeper/zk"
)

// ProtectedPrefix starts the name of every protected sequential znode:
// "_c_<32 hex digits of GUID>-<prefix><10-digit sequence>", the form of
// Curator and go-zookeeper, so that tools from either world recognise it.
const ProtectedPrefix = "_c_"

// Create makes a persistent znode. It is not idempotent, so a retried create
// that meets node-exists reports it; callers that only need the node to be
// there use EnsurePath.
func (r *RecoverableZookeeper) Create(ctx context.Context, path string, data []byte, acl []zk.ACL) (string, error) {
	p, _, err := retry(ctx, r, "create", path, func() (string, error) {
		return r.conn.Create(path, data, 0, acl)
	})
	return p, wrap("create", path, err)
}

// EnsurePath creates path and any missing parents as empty persistent
// znodes. Existing ones are left as they are.
func (r *RecoverableZookeeper) EnsurePath(ctx context.Context, path string, acl []zk.ACL) error {
	for i := 1; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		_, err := r.Create(ctx, path[:i], nil, acl)
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// CreateEphemeral makes the ephemeral znode path, the single-file election's
// create. After a lost reply the retry may meet node-exists: the node then
// counts as ours only when its EphemeralOwner is our current session. (The
// article compared the data, which two processes with the same name share.)
// Anyone else's node yields an error that errors.Is matches to
// zk.ErrNodeExists.
func (r *RecoverableZookeeper) CreateEphemeral(ctx context.Context, path string, data []byte, acl []zk.ACL) (string, error) {
	p, _, err := retry(ctx, r, "create", path, func() (string, error) {
		p, err := r.conn.Create(path, data, zk.FlagEphemeral, acl)
		if !errors.Is(err, zk.ErrNodeExists) {
			return p, err
		}
		mine, ownErr := r.ownedBySession(ctx, path)
		switch {
		case mine:
			r.log.Info("create found its own node after a lost reply", "path", path)
			return path, nil
		case errors.Is(ownErr, zk.ErrNoNode):
			return "", again(err) // the holder left in between
		case ownErr != nil:
			return "", final(ownErr)
		}
		return "", err
	})
	return p, wrap("create", path, err)
}

// ownedBySession reports whether path is an ephemeral znode of the session
// held right now.
func (r *RecoverableZookeeper) ownedBySession(ctx context.Context, path string) (bool, error) {
	ok, st, err := r.Exists(ctx, path)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, zk.ErrNoNode
	}
	id := r.SessionID()
	return id != 0 && st.EphemeralOwner == id, nil
}

// NewProtectedName returns ProtectedPrefix+GUID+"-"+prefix, a name for
// CreateProtectedEphemeralSequential. A candidate keeps its name for all its
// creates, so that FindOwn can still recognise a node whose create ended in
// an error that left the outcome unknown.
func NewProtectedName(prefix string) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("recoverable: make a GUID: %w", err)
	}
	return ProtectedPrefix + hex.EncodeToString(b[:]) + "-" + prefix, nil
}

// CreateProtectedEphemeralSequential makes an EPHEMERAL|SEQUENTIAL child of
// parent named name (see NewProtectedName), the candidate's znode in the
// sequential election, and returns its full path.
//
// When the reply is lost, the server may or may not have made the node. So
// before trying again it looks with FindOwn, and never creates again while
// that lookup fails. A caller that gets an error back does not know either:
// it must call FindOwn before it creates with the same name.
func (r *RecoverableZookeeper) CreateProtectedEphemeralSequential(ctx context.Context, parent, name string, data []byte, acl []zk.ACL) (string, error) {
	path := strings.TrimSuffix(parent, "/") + "/" + name
	lost := false // a create's outcome is unknown: look before creating again
	p, _, err := retry(ctx, r, "create", path, func() (string, error) {
		if lost {
			// While the look fails, its error has retry look again, and
			// never create: the lost create could have made a node.
			found, err := r.FindOwn(ctx, parent, name)
			if err != nil {
				return "", err
			}
			if found != "" {
				r.log.Info("create found its own node after a lost reply", "path", found)
				return found, nil
			}
		}
		p, err := r.conn.Create(path, data, zk.FlagEphemeral|zk.FlagSequence, acl)
		lost = lost || IsRetryable(err)
		return p, err
	})
	return p, wrap("create", path, err)
}

// FindOwn returns the child of parent made by CreateProtectedEphemeralSequential
// with name that is an ephemeral of the current session, or "". It syncs
// first, so that a create that reached the leader shows. A node of an older,
// expired session is about to vanish and is not taken (Curator's
// CURATOR-498). Should two of ours turn up, the extras are deleted, so that
// no candidate is left standing for nobody.
func (r *RecoverableZookeeper) FindOwn(ctx context.Context, parent, name string) (string, error) {
	if err := r.Sync(ctx, parent); err != nil {
		return "", err
	}
	children, err := r.Children(ctx, parent)
	if err != nil {
		return "", err
	}
	sort.Strings(children) // same GUID and prefix: the order is the sequence's
	var own []string
	for _, c := range children {
		if !strings.HasPrefix(c, name) {
			continue
		}
		p := strings.TrimSuffix(parent, "/") + "/" + c
		mine, err := r.ownedBySession(ctx, p)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return "", err
		}
		if mine {
			own = append(own, p)
		}
	}
	if len(own) == 0 {
		return "", nil
	}
	for _, extra := range own[1:] {
		r.log.Warn("deleting a duplicate candidate node of ours", "path", extra)
		if err := r.Delete(ctx, extra, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return "", err
		}
	}
	return own[0], nil
}
