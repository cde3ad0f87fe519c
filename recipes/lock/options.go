package lock

import "zkspeaker/nodemonitor"

// Option configures a Lock (see New).
type Option func(*options)

// options are a Lock's settings; the lock's path is New's argument, and
// the watch is always on one contender: a lock has no herd. The ACL of
// its znodes and its logger are the session's (see New).
type options struct {
	policy nodemonitor.Policy
	shared bool
	// leases is a semaphore's number of leases, when semaphore.
	leases    int
	semaphore bool
	// marks: the holder watches for revoke requests; revocable: it
	// honours them (Revocable, Irrevocable).
	marks, revocable bool
}

// WithPolicy chooses what a holder does when its connection is lost: under
// nodemonitor.AtMostOne (the default) the lock is suspended until proved
// ours again; under nodemonitor.AtLeastOne it stays held while the session
// may live, and Epoch is 0, since nothing is confirmed.
func WithPolicy(p nodemonitor.Policy) Option { return func(o *options) { o.policy = p } }

// Shared makes the Lock a read lock: readers on one path hold together,
// and a writer, a Lock made without Shared, holds alone. A reader waits
// only for the writers ahead of it in line, a writer for everyone ahead,
// so a writer in line holds off the readers that come after it. Lost,
// Observe, Done, Err and Epoch work as for the write lock.
func Shared() Option { return func(o *options) { o.shared = true } }

// Leases makes the Lock one of n leases of a semaphore at its path: at
// most n contenders hold at once, each as the lock is held (Lost, Observe,
// Done, Err, Epoch). The path records n, and Lock fails with ErrLeases for
// a contender with another n. Shared has no effect on a lease. Lock fails
// with an error that is nodemonitor.ErrInvalid for n below 1.
func Leases(n int) Option { return func(o *options) { o.leases, o.semaphore = n, true } }

// monitorOptions are the election's options for path and o.
func (o options) monitorOptions(path string) []nodemonitor.Option {
	var rule nodemonitor.Rule = writer{}
	switch {
	case o.semaphore:
		rule, path = leaseRule{n: o.leases}, path+"/"+leasesDir
	case o.shared:
		rule = reader{}
	}
	return []nodemonitor.Option{nodemonitor.WithPath(path), nodemonitor.WithWatch(nodemonitor.WatchPredecessor),
		nodemonitor.WithPolicy(o.policy), nodemonitor.WithRule(rule)}
}
