package election

import (
	"errors"
	"strings"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// ErrInvalid is wrapped by every error about a bad option value.
var ErrInvalid = errors.New("election: invalid option")

// ErrSessionChanged means the session was replaced while a znode was being
// created, so the new znode cannot be trusted to be ours.
var ErrSessionChanged = errors.New("election: session changed")

// ValidatePath checks an election path: one ZooKeeper takes
// (recoverable.ValidatePath), other than the root, and not under
// /zookeeper, which the servers keep for themselves.
func ValidatePath(p string) error {
	switch {
	case p == "/":
		return reason.New(ErrInvalid, "path", "%q is the root; use a znode under it", p)
	case p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/"):
		return reason.New(ErrInvalid, "path", "%q is under /zookeeper, which ZooKeeper reserves", p)
	}
	if err := recoverable.ValidatePath("path", p); err != nil {
		return reason.Because(ErrInvalid, "path", err)
	}
	return nil
}
