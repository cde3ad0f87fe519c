package recoverable

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/go-zookeeper/zk"
)

// ErrClosed is returned by every operation once Close was called. It is never
// retried: go-zookeeper reports its own shutdown as a connection loss, which
// would otherwise look retryable.
var ErrClosed = errors.New("recoverable: closed")

// ErrRetriesExhausted wraps the last recoverable error of an operation that
// used up its RetryCounter.
var ErrRetriesExhausted = errors.New("recoverable: retries exhausted")

// ErrRetried wraps the answer to a write that was sent again after a
// connection loss (bad-version, no-node, node-exists): the first attempt
// may have applied, and caused that very answer.
var ErrRetried = errors.New("recoverable: answer to a retried write")

// ErrReconnected is the proof a standalone server's read would have given
// when the client lost its connection, or made a new one, while the read was
// on its way: its answer may come from another server (see serverMode, in
// servermode.go).
var ErrReconnected = errors.New("recoverable: reconnected while the read was on its way")

// IsRetryable reports whether err is a fault that a retry can cure: the
// connection was lost mid-request (Java's CONNECTIONLOSS), or no server could
// be reached in a full pass over the list. go-zookeeper reports a lost
// connection as ErrConnectionClosed, or, when the request's own write failed,
// as the raw network error. It has no OPERATIONTIMEOUT code: a request that
// hangs ends in a connection loss when the client's receive timeout fires.
// Everything else — session expiry, auth failure, no-node, node-exists,
// bad-version, a cancelled context — goes straight to the caller.
func IsRetryable(err error) bool {
	// context.DeadlineExceeded passes for a net.Error (it has Timeout), but
	// it is the caller's own deadline: retrying cannot beat it.
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// NeverSent reports whether err is go-zookeeper's answer to a request that
// never left the client: it queues requests made while it is disconnected
// and fails them with ErrNoServer each time a pass over the whole server
// list found none to take them. Such a request cannot have been applied,
// so trying it again once a server answers is no retry of an unknown
// outcome, and a caller that counts retries need not count it.
func NeverSent(err error) bool { return errors.Is(err, zk.ErrNoServer) }

// IsPermanent reports whether err is an answer that no retry, however
// patient, can change: the request itself is wrong (an invalid path, ACL or
// argument, a child under an ephemeral znode). A loop that tries again
// after other faults (an expiry, a lost quorum) must give up on these.
func IsPermanent(err error) bool {
	for _, p := range []error{zk.ErrInvalidPath, zk.ErrNoChildrenForEphemerals, zk.ErrBadArguments, zk.ErrInvalidACL} {
		if errors.Is(err, p) {
			return true
		}
	}
	return false
}
