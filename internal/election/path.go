package election

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error about a bad option value.
var ErrInvalid = errors.New("election: invalid option")

// ErrSessionChanged means the session was replaced while a znode was being
// created, so the new znode cannot be trusted to be ours.
var ErrSessionChanged = errors.New("election: session changed")

// ValidatePath checks an election path: absolute, no trailing slash, no
// empty, "." or ".." component, and not under /zookeeper, which the servers
// keep for themselves.
func ValidatePath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("%w: path %q is not absolute", ErrInvalid, p)
	case p == "/":
		return fmt.Errorf("%w: path %q is the root; use a znode under it", ErrInvalid, p)
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("%w: path %q ends in /", ErrInvalid, p)
	case p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/"):
		return fmt.Errorf("%w: path %q is under /zookeeper, which ZooKeeper reserves", ErrInvalid, p)
	}
	for _, c := range strings.Split(p[1:], "/") {
		if c == "" || c == "." || c == ".." {
			return fmt.Errorf("%w: path %q has an empty, . or .. component", ErrInvalid, p)
		}
		for _, r := range c {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("%w: path %q contains a control character", ErrInvalid, p)
			}
		}
	}
	return nil
}
