package recoverable

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
)

// PathError is a znode path, or one name in it, that may not be used: one
// ZooKeeper would refuse, or one the servers keep for themselves. It wraps
// zk.ErrInvalidPath, which go-zookeeper returns for such a path without
// sending it, so that errors.Is finds either.
type PathError struct {
	Field   string // the argument or flag that held it: "path", "election"
	Path    string // the path or name as given
	Problem string // what is wrong, in words: "ends in /"
}

// Error names the field, then says what is wrong with its value.
func (e *PathError) Error() string { return e.Field + ": " + e.Reason() }

// Reason says what is wrong without naming the field, for a line that
// names it in its own way ("--path: …").
func (e *PathError) Reason() string { return fmt.Sprintf("%q %s", e.Path, e.Problem) }

// Unwrap returns zk.ErrInvalidPath.
func (e *PathError) Unwrap() error { return zk.ErrInvalidPath }

// ValidatePath checks p, the value of field, as the path of a znode that
// a recipe keeps: one ZooKeeper takes, by the client's rules
// (go-zookeeper's validatePath) and the server's
// (org.apache.zookeeper.common.PathUtils) together, other than the root,
// and not under /zookeeper, which the servers keep for themselves. Such a
// path fails at once and forever, so every layer that is given one checks
// it with this before its first request, and no retry loop ever meets one.
func ValidatePath(field, p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return &PathError{field, p, "is not absolute (it must start with /)"}
	case p == "/":
		return &PathError{field, p, "is the root; use a znode under it"}
	case strings.HasSuffix(p, "/"):
		return &PathError{field, p, "ends in /"}
	case p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/"):
		return &PathError{field, p, "is under /zookeeper, which ZooKeeper reserves"}
	}
	for _, name := range strings.Split(p[1:], "/") {
		if problem := nameProblem(name); problem != "" {
			return &PathError{field, p, problem}
		}
	}
	return nil
}

// ValidateName checks one znode name, a component of a path without its
// slashes, by ValidatePath's rules.
func ValidateName(name string) error {
	if strings.Contains(name, "/") {
		return &PathError{"name", name, "contains /; it must be one znode name"}
	}
	if problem := nameProblem(name); problem != "" {
		return &PathError{"name", name, problem}
	}
	return nil
}

// nameProblem says what ZooKeeper would refuse in one name, or "".
func nameProblem(name string) string {
	switch name {
	case "":
		return "has an empty component (//)"
	case ".", "..":
		return "has a . or .. component, which ZooKeeper does not allow"
	}
	if !utf8.ValidString(name) {
		return "is not valid UTF-8"
	}
	for _, r := range name {
		switch {
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return "contains a control character"
		case r >= 0xd800 && r <= 0xf8ff, r >= 0xfff0:
			// Above U+FFFF Java holds a character as two surrogates,
			// which PathUtils refuses like the private-use range.
			return fmt.Sprintf("contains %U, which ZooKeeper does not allow in a path", r)
		}
	}
	return ""
}
