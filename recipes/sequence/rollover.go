package sequence

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// rolloverAt is the data version at which the leader makes a sequence's
// znode anew. ZooKeeper's data version is an int32 that wraps after 2^32
// writes, through -1, and a compare-and-set with version -1 matches any
// version: two workers could both win it. About a million writes before
// the positive versions run out, the znode is replaced, in one multi, by a
// fresh one at version 0. From that version on, workers wait, as they do
// at the limit, so that the leader's multi is not beaten by their writes.
// (A variable so that a test can reach it.)
var rolloverAt int32 = 1<<31 - 1<<20

// rollover replaces the sequence's znode with a fresh one that holds the
// same next ID and limit, under a new incarnation, in one multi fenced by
// our election znode: a worker's write prepared against the old znode
// checks the old marker, which goes with it, and fails. The store first
// gets a reservation of the new incarnation above the old one, so that
// the new znode is not taken for one made anew (see raise). The new znode
// and its marker get the ACL the old znode has: an operator may have
// changed it since the sequence was made, and the leader's own default
// would quietly undo that.
//
// In ModeCounter the marker is the counter, and the one in rollover
// starts again at version 0, so the new base must lie above every ID
// handed out. Workers write the counter blindly, so its version when the
// multi applies is not known; the limit is: no ID at or past it was
// handed out (the workers burn those), and the multi checks the version
// of the znode that holds it. The new base is the limit, or the stored
// reservation when that is higher (a sequence made anew: see raise), and
// the new limit two blocks above it. The IDs between next and the old
// limit are skipped: at most two blocks, once in 2^31 versions.
func (t *term) rollover(ctx context.Context, name, p string, st state, ver int32, next int64) error {
	acl, _, err := t.p.rz.GetACL(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil // gone meanwhile: maintain reads again
	}
	if err != nil {
		return fmt.Errorf("read the ACL of %s: %w", p, err)
	}
	prev, err := t.p.store.Reserved(ctx, name)
	if err != nil {
		return err
	}
	fresh := st
	fresh.Incarnation = newToken()
	to := max(prev.Value+1, st.Next+2*t.p.o.block)
	if st.counter() {
		fresh.Base = max(st.Limit, prev.Value)
		to = fresh.Base + 2*t.p.o.block
		fresh.Limit = to
	}
	if _, err := t.p.store.Raise(ctx, name, Reservation{to, fresh.Incarnation, st.Mode}); err != nil {
		return err
	}
	// As raise says it: every reservation is logged once durable, before
	// ZooKeeper lets an ID below it be handed out.
	t.p.log.Debug("stored a reservation; now making the znode anew", "sequence", name, "stored", to)
	res, err := t.p.rz.Multi(ctx,
		&zk.CheckVersionRequest{Path: t.node, Version: -1},
		&zk.DeleteRequest{Path: st.marker(p), Version: -1},
		&zk.DeleteRequest{Path: p, Version: ver},
		&zk.CreateRequest{Path: p, Data: fresh.written(newToken()).encode(), Acl: acl},
		&zk.CreateRequest{Path: fresh.marker(p), Acl: acl})
	switch {
	case err == nil:
		t.p.log.Info("made the sequence's znode anew: before its version wraps, or above an earlier incarnation's reservation",
			"sequence", name, "version", ver, "next", next, "limit", st.Limit, "base", fresh.Base, "to", fresh.Limit)
		return nil
	case len(res) == 5 && errors.Is(res[0].Error, zk.ErrNoNode):
		t.p.refused.Add(1)
		return errNotLeader
	case errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode):
		return nil // a worker wrote meanwhile, or it is gone: maintain reads again
	default:
		return fmt.Errorf("make %s anew: %w", p, err)
	}
}
