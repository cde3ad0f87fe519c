package nodemonitor

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-zookeeper/zk"
)

// DefaultPath is the election znode of the sequential recipe.
const DefaultPath = "/election"

// Option configures a Monitor and its recipe.
type Option func(*Config)

// Config is the settings of a Monitor and its recipe, after the options.
type Config struct {
	// Path is the election znode.
	Path string
	// Watch is what followers of the sequential recipe watch.
	Watch WatchMode
	// Policy is what a paused leader does.
	Policy Policy
	// ACL is set on every znode the recipe creates.
	ACL []zk.ACL
	// Logger receives one line per state change.
	Logger *slog.Logger
}

// WithPath sets the election znode; candidates are its children.
func WithPath(p string) Option { return func(c *Config) { c.Path = p } }

// WithWatch chooses what followers watch (sequential recipe only).
func WithWatch(w WatchMode) Option { return func(c *Config) { c.Watch = w } }

// WithPolicy chooses what a paused leader does.
func WithPolicy(p Policy) Option { return func(c *Config) { c.Policy = p } }

// WithACL sets the ACL of the znodes the monitor creates; the default is
// open to all, as in the articles.
func WithACL(acl []zk.ACL) Option { return func(c *Config) { c.ACL = acl } }

// WithLogger sets where the monitor logs its state changes.
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// NewConfig applies opts to the defaults and checks the result in one place.
// The defaults: DefaultPath, WatchPredecessor, AtMostOne, an ACL open to all
// (as in the articles), and slog's default logger.
func NewConfig(opts ...Option) (Config, error) {
	c := Config{Path: DefaultPath, ACL: zk.WorldACL(zk.PermAll), Logger: slog.Default()}
	for _, opt := range opts {
		opt(&c)
	}
	if err := ValidatePath(c.Path); err != nil {
		return c, err
	}
	if c.Watch.String() == "unknown" || c.Policy.String() == "unknown" {
		return c, fmt.Errorf("%w: watch %d, policy %d", ErrInvalid, c.Watch, c.Policy)
	}
	return c, nil
}

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
