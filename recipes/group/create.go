package group

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
)

// Create makes the group's persistent znode, with no data, as the chapter's
// CreateGroup does: persistent, because the group must outlive the program
// that creates it. It returns ErrExists when the group is there already, and
// ErrNoParent when a group given as a path has no parent znode.
//
// A create is not idempotent, and a reply can be lost: the retry after a
// connection loss may then meet the group our own first attempt made. A
// persistent znode has no owner to tell whose it is, so Create looks first,
// and reports ErrExists only for a group that was there before it sent
// anything. A group that appears in between is taken as created: whoever
// made it, it exists now, as the caller asked.
func (g *Group) Create(ctx context.Context) error {
	ok, _, err := g.rz.Exists(ctx, g.path)
	if err != nil {
		return fmt.Errorf("group: create %s: %w", g.path, err)
	}
	if ok {
		return fmt.Errorf("%w: %s", ErrExists, g.path)
	}
	_, err = g.rz.Create(ctx, g.path, nil, g.acl)
	switch {
	case err == nil:
		g.warnOpenParent(ctx)
		return nil
	case errors.Is(err, zk.ErrNodeExists):
		g.log.Info("the group appeared while we created it: a lost reply of ours, or another creator", "group", g.path)
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return reason.New(ErrNoParent, "", "%s does not exist; create it before %s", path.Dir(g.path), g.path)
	default:
		return fmt.Errorf("group: create %s: %w", g.path, err)
	}
}

// List returns the names of the group's members, sorted: the chapter's
// ListGroup. It returns ErrNoGroup when the group does not exist, and an
// empty list when it has no members.
//
// The answer is a snapshot, as the chapter warns: a member may join or
// leave as soon as it is read. Watch follows the changes.
func (g *Group) List(ctx context.Context) ([]string, error) {
	members, err := g.rz.Children(ctx, g.path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("%w: %s", ErrNoGroup, g.path)
	}
	if err != nil {
		return nil, fmt.Errorf("group: list %s: %w", g.path, err)
	}
	sort.Strings(members)
	return members, nil
}

// warnOpenParent warns, after a create with an ACL that is not open to
// all, when anyone may still delete the group while it has no members:
// ZooKeeper checks a delete against the parent's ACL, not the znode's own,
// and / (the chapter's parent) lets everyone delete. A parent made with
// the same ACL closes that door (a group "apps", then "apps/zoo").
func (g *Group) warnOpenParent(ctx context.Context) {
	if isOpen(g.acl) {
		return
	}
	parent := path.Dir(g.path)
	acl, _, err := g.rz.GetACL(ctx, parent)
	if err != nil || !anyoneMayDelete(acl) {
		return
	}
	g.log.Warn("anyone may still delete the group while it has no members: ZooKeeper checks a delete against the parent's ACL, and the ACL of "+
		parent+" lets anyone delete; to protect it, create it under a parent made with the same credentials",
		"group", g.path, "parent", parent)
}

// isOpen reports whether acl lets anyone do everything.
func isOpen(acl []zk.ACL) bool {
	for _, a := range acl {
		if a.Scheme == "world" && a.ID == "anyone" && a.Perms == zk.PermAll {
			return true
		}
	}
	return false
}

// anyoneMayDelete reports whether acl lets anyone delete children.
func anyoneMayDelete(acl []zk.ACL) bool {
	for _, a := range acl {
		if a.Scheme == "world" && a.ID == "anyone" && a.Perms&zk.PermDelete != 0 {
			return true
		}
	}
	return false
}
