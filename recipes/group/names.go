package group

import (
	"errors"
	"strings"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// ParseName returns the znode path of the group called name. A group name is
// a znode path whose leading slash may be left out, so that the chapter's
// `CreateGroup localhost zoo` reads the same here: "zoo" and "/zoo" are both
// /zoo, and "apps/zoo" is /apps/zoo, a group below /apps, which must exist
// before the group is created. The root and anything under /zookeeper,
// which ZooKeeper keeps for itself, are refused.
//
// It checks what ZooKeeper would refuse (empty components, "." and "..",
// the characters its PathUtils rejects) here, before any request: the
// commands promise to create nothing when their input is bad.
func ParseName(name string) (string, error) {
	path := name
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	switch {
	case name == "":
		return "", reason.New(ErrInvalidName, "name", "the group name is empty")
	case path == "/":
		return "", reason.New(ErrInvalidName, "name", "group %q is the root; name a znode under it", name)
	case strings.HasSuffix(path, "/"):
		return "", reason.New(ErrInvalidName, "name", "group %q ends in /", name)
	case path == "/zookeeper" || strings.HasPrefix(path, "/zookeeper/"):
		return "", reason.New(ErrInvalidName, "name", "group %q is under /zookeeper, which ZooKeeper keeps for itself", name)
	}
	for _, c := range strings.Split(path[1:], "/") {
		if why := badComponent(c); why != "" {
			return "", reason.New(ErrInvalidName, "name", "group %q %s", name, why)
		}
	}
	return path, nil
}

// ValidateMember checks a member's name: one znode name, with no slash, as
// each member is a child of the group's znode.
func ValidateMember(name string) error {
	if name == "" {
		return reason.New(ErrInvalidName, "name", "the member name is empty")
	}
	if strings.Contains(name, "/") {
		return reason.New(ErrInvalidName, "name", "member %q contains /; a member is one znode name", name)
	}
	if why := badComponent(name); why != "" {
		return reason.New(ErrInvalidName, "name", "member %q %s", name, why)
	}
	return nil
}

// badComponent says what is wrong with one component of a path, or "":
// what ZooKeeper refuses (recoverable.ValidateName), which includes a
// newline, that would also break `list`, one member a line.
func badComponent(c string) string {
	var perr *recoverable.PathError
	if err := recoverable.ValidateName(c); errors.As(err, &perr) {
		return perr.Problem
	}
	return ""
}
