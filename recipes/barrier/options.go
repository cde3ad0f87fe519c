package barrier

// Option configures a DoubleBarrier (see NewDouble).
type Option func(*options)

// options are a DoubleBarrier's settings; its path and count are
// NewDouble's arguments, and its ACL and logger are the session's.
type options struct {
	name string // stored in the member's znode, for zkCli.sh and zkview
}

// WithName stores name in the member's znode, so that whoever lists the
// barrier sees who is in (a host:pid, say). The default is empty.
func WithName(name string) Option { return func(o *options) { o.name = name } }
