// Package group is the group membership recipe of the ZooKeeper chapter of
// "Hadoop: The Definitive Guide": a group is a persistent znode, and each
// member is an ephemeral child of it, so that ZooKeeper itself takes a
// member out of the group when the member's session ends. The chapter's
// four programs (CreateGroup, JoinGroup, ListGroup and DeleteGroup) become
// the methods Create, Join, List and Delete of a Group, and Watch follows
// the membership as it changes.
//
// What the chapter's listings leave out, this package handles: a member
// whose connection drops stays a member until its session expires, and
// rejoins on its new session after that (Member); a create whose reply was
// lost is recognised by the znode's owner, not taken for somebody else's
// member; and Delete removes the members and the group in one multi, so that
// nobody ever sees half a group (see README.md, "Deleting a group").
package group

import (
	"errors"
	"log/slog"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrInvalidName is wrapped by every error about a group or member name that
// ZooKeeper, or this package, would not accept.
var ErrInvalidName = errors.New("group: invalid name")

// ErrNoGroup means the group's znode does not exist: it was never created,
// or it was deleted.
var ErrNoGroup = errors.New("group: no such group")

// ErrNoParent means that a group given as a path (/apps/zoo) was to be
// created under a znode (/apps) that does not exist.
var ErrNoParent = errors.New("group: parent znode does not exist")

// ErrExists means Create found the group already there.
var ErrExists = errors.New("group: group already exists")

// ErrMemberTaken means another live session holds the member's name: two
// processes joined under the same name. The error names the session.
var ErrMemberTaken = errors.New("group: member name held by another session")

// ErrNotMember means Delete met a child of the group that has children of
// its own: a group nested in the group, not a member. Delete removes
// nothing then.
var ErrNotMember = errors.New("group: a child of the group is not a member")

// ErrBusy means Delete gave up because the membership changed under every
// one of its attempts; the group is left whole.
var ErrBusy = errors.New("group: membership kept changing; not deleted")

// Group is one group on one ZooKeeper session: the chapter's /zoo. It holds
// no state of its own beyond its path, so any number of goroutines may use
// it at once.
type Group struct {
	rz   *recoverable.RecoverableZookeeper
	path string
	acl  []zk.ACL     // of the group's znode and its members': the session's (rz.ACL)
	log  *slog.Logger // what happens unasked, a rejoin, a delete tried again: the session's
}

// New returns the group called name on the session of rz. name is a znode
// path, whose leading slash may be left out: "zoo" is /zoo, as in the
// chapter, and "apps/zoo" is /apps/zoo (see ParseName). The znodes it
// creates, the group's own (Create) and its members' (Join), carry the
// session's ACL (recoverable.WithACL), and it logs to the session's logger.
// New talks to no server.
func New(rz *recoverable.RecoverableZookeeper, name string) (*Group, error) {
	path, err := ParseName(name)
	if err != nil {
		return nil, err
	}
	return &Group{rz: rz, path: path, acl: rz.ACL(), log: rz.Logger()}, nil
}

// Path returns the group's znode path.
func (g *Group) Path() string { return g.path }

// member returns the znode path of the member called name.
func (g *Group) member(name string) string { return g.path + "/" + name }
