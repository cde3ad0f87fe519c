package config

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrInvalidKey is returned, before anything is sent to ZooKeeper, for a key
// that is not one znode name (see ValidateKey).
var ErrInvalidKey = errors.New("config: invalid key")

// ErrInvalidPath is returned by New for a base path that is not an absolute
// znode path below the root (see ValidateBase).
var ErrInvalidPath = errors.New("config: invalid base path")

// ErrValueTooLarge is returned, before anything is sent, for a value that
// ZooKeeper would refuse to hold in one znode.
var ErrValueTooLarge = errors.New("config: value too large")

// ErrNotFound is returned by Read for a key that was never written, or was
// deleted.
var ErrNotFound = errors.New("config: no such key")

// ErrConnectionLoss means the connection to ZooKeeper dropped while a
// request was on its way (the chapter's ConnectionLossException): the
// request may or may not have been applied. A Write can be tried again,
// because it is idempotent; a Store made WithRetry does so itself.
var ErrConnectionLoss = errors.New("config: lost the connection to ZooKeeper")

// ErrSessionExpired means the servers ended the session (the chapter's
// SessionExpiredException). Unlike the Java client, go-zookeeper then opens
// a new session on the same connection by itself, so a caller that wants
// to carry on only has to try again; one that wants the chapter's first
// ConfigUpdater stops here.
var ErrSessionExpired = errors.New("config: session expired")

// classify names a failed request by what the caller can do about it, and
// keeps the original error in the chain for errors.Is:
// ErrConnectionLoss for a fault that a retry can cure, ErrSessionExpired
// for an expiry, the error as it is otherwise.
// The RecoverableZookeeper's errors name the operation and the path already.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrSessionExpired):
		return fmt.Errorf("%w: %w", ErrSessionExpired, err)
	case recoverable.IsRetryable(err):
		return fmt.Errorf("%w: %w", ErrConnectionLoss, err)
	default:
		return fmt.Errorf("config: %w", err)
	}
}
