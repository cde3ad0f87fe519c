package recoverable

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-zookeeper/zk"
)

// PathError is a znode path, or one name in it, that ZooKeeper would
// refuse. It wraps zk.ErrInvalidPath, which go-zookeeper returns for such
// a path without sending it, so that errors.Is finds either.
type PathError struct {
	Path    string // the path or name as given
	Problem string // what is wrong, in words: "ends in /"
}

// Error says which path and what is wrong with it.
func (e *PathError) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Problem) }

// Unwrap returns zk.ErrInvalidPath.
func (e *PathError) Unwrap() error { return zk.ErrInvalidPath }

// ValidatePath checks an absolute znode path the way ZooKeeper does: the
// client (go-zookeeper's validatePath) and the server
// (org.apache.zookeeper.common.PathUtils) together. Such a path fails at
// once and forever, so every command checks it before its first request,
// and no retry loop ever meets one. The root "/" is valid.
func ValidatePath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return &PathError{p, "is not absolute (it must start with /)"}
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return &PathError{p, "ends in /"}
	}
	for _, name := range strings.Split(p[1:], "/") {
		if problem := nameProblem(name); problem != "" {
			return &PathError{p, problem}
		}
	}
	return nil
}

// ValidateName checks one znode name, a component of a path without its
// slashes, by ValidatePath's rules.
func ValidateName(name string) error {
	if strings.Contains(name, "/") {
		return &PathError{name, "contains /; it must be one znode name"}
	}
	if problem := nameProblem(name); problem != "" {
		return &PathError{name, problem}
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
