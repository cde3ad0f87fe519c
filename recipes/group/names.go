package group

import (
	"fmt"
	"strings"
	"unicode/utf8"
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
		return "", fmt.Errorf("%w: the group name is empty", ErrInvalidName)
	case path == "/":
		return "", fmt.Errorf("%w: group %q is the root; name a znode under it", ErrInvalidName, name)
	case strings.HasSuffix(path, "/"):
		return "", fmt.Errorf("%w: group %q ends in /", ErrInvalidName, name)
	case path == "/zookeeper" || strings.HasPrefix(path, "/zookeeper/"):
		return "", fmt.Errorf("%w: group %q is under /zookeeper, which ZooKeeper keeps for itself", ErrInvalidName, name)
	}
	for _, c := range strings.Split(path[1:], "/") {
		if why := badComponent(c); why != "" {
			return "", fmt.Errorf("%w: group %q %s", ErrInvalidName, name, why)
		}
	}
	return path, nil
}

// ValidateMember checks a member's name: one znode name, with no slash, as
// each member is a child of the group's znode.
func ValidateMember(name string) error {
	if name == "" {
		return fmt.Errorf("%w: the member name is empty", ErrInvalidName)
	}
	if strings.Contains(name, "/") {
		return fmt.Errorf("%w: member %q contains /; a member is one znode name", ErrInvalidName, name)
	}
	if why := badComponent(name); why != "" {
		return fmt.Errorf("%w: member %q %s", ErrInvalidName, name, why)
	}
	return nil
}

// badComponent says what is wrong with one component of a path, or "". The
// characters are those org.apache.zookeeper.common.PathUtils rejects; a
// newline among them would also break `list`, one member a line.
func badComponent(c string) string {
	switch c {
	case "":
		return "has an empty component (//)"
	case ".", "..":
		return "has a . or .. component, which ZooKeeper does not allow"
	}
	if !utf8.ValidString(c) {
		return "is not valid UTF-8"
	}
	for _, r := range c {
		switch {
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return "contains a control character"
		case (r >= 0xd800 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xffff):
			return fmt.Sprintf("contains %U, which ZooKeeper does not allow in a path", r)
		}
	}
	return ""
}
