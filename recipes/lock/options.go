package lock

import (
	"log/slog"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
)

// Option configures a Lock (see New).
type Option func(*options)

// options are a Lock's settings; the lock's path is New's argument, and
// the watch is always on the predecessor: a lock has no herd.
type options struct {
	policy nodemonitor.Policy
	acl    []zk.ACL
	logger *slog.Logger
}

// WithPolicy chooses what a holder does when its connection is lost: under
// nodemonitor.AtMostOne (the default) the lock is suspended until proved
// ours again; under nodemonitor.AtLeastOne it stays held while the session
// may live, and Epoch is 0, since nothing is confirmed.
func WithPolicy(p nodemonitor.Policy) Option { return func(o *options) { o.policy = p } }

// WithACL sets the ACL of the znodes the lock creates (recoverable.Access
// gives one for --auth); the default lets anyone do anything.
func WithACL(acl []zk.ACL) Option { return func(o *options) { o.acl = acl } }

// WithLogger sets where the lock's election logs its state changes.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// monitorOptions are the election's options for path and o.
func (o options) monitorOptions(path string) []nodemonitor.Option {
	opts := []nodemonitor.Option{nodemonitor.WithPath(path), nodemonitor.WithWatch(nodemonitor.WatchPredecessor), nodemonitor.WithPolicy(o.policy)}
	if o.acl != nil {
		opts = append(opts, nodemonitor.WithACL(o.acl))
	}
	if o.logger != nil {
		opts = append(opts, nodemonitor.WithLogger(o.logger))
	}
	return opts
}
