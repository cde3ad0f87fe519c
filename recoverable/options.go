package recoverable

import (
	"log/slog"
	"strings"

	"github.com/go-zookeeper/zk"
)

// Option configures a RecoverableZookeeper.
type Option func(*options)

type options struct {
	retry  RetryCounterFactory
	logger *slog.Logger
	acl    []zk.ACL
	digest string
}

// WithRetry sets the RetryCounterFactory used for every operation.
func WithRetry(f RetryCounterFactory) Option { return func(o *options) { o.retry = f } }

// WithLogger sets the logger of the session and of all that is built on
// it: the recipes and monitors given the client log to it too (Logger), so
// that one logger follows one session. go-zookeeper's own messages go to it
// at debug level, so they stay out of sight at the default info level. The
// default is slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithACL sets the ACL of the znodes that the recipes and monitors given
// the client create (ACL). It belongs with the session, because the
// identity the session authenticates as (WithDigestAuth) is the one an ACL
// such as DigestACL names; Access gives both. The default is open to
// everyone, as in the articles and the chapter (OPEN_ACL_UNSAFE).
func WithACL(acl []zk.ACL) Option { return func(o *options) { o.acl = acl } }

// WithDigestAuth authenticates the session as "user:password" with
// ZooKeeper's digest scheme, and again after every reconnect. See DigestACL.
func WithDigestAuth(userPassword string) Option { return func(o *options) { o.digest = userPassword } }

// DigestACL returns the ACL for znodes that only the digest identity
// "user:password" may change or delete, and anyone may read, so that status
// tools and zkCli can still look. Note that ZooKeeper checks a delete against
// the parent's ACL.
func DigestACL(userPassword string) []zk.ACL {
	user, password, _ := strings.Cut(userPassword, ":")
	return append(zk.DigestACL(zk.PermAll, user, password), zk.ACL{Perms: zk.PermRead, Scheme: "world", ID: "anyone"})
}

// Access is what a command's --auth gives: the options that authenticate
// its sessions as userPassword and give the znodes made on them its ACL
// (WithACL(DigestACL)), and that ACL itself. Without an identity ("")
// there is no option, and the znodes are open to everyone, as in the
// articles and the chapter.
func Access(userPassword string) ([]Option, []zk.ACL) {
	if userPassword == "" {
		return nil, zk.WorldACL(zk.PermAll)
	}
	acl := DigestACL(userPassword)
	return []Option{WithDigestAuth(userPassword), WithACL(acl)}, acl
}

// ACL is the ACL that the recipes and monitors built on this client give
// the znodes they create (see WithACL).
func (r *RecoverableZookeeper) ACL() []zk.ACL { return r.acl }

// Logger is where the recipes and monitors built on this client log (see
// WithLogger).
func (r *RecoverableZookeeper) Logger() *slog.Logger { return r.log }
