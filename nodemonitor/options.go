package nodemonitor

import (
	"fmt"

	"zkspeaker/recoverable"
)

// DefaultPath is the election znode of the sequential recipe.
const DefaultPath = "/election"

// Option configures a Monitor.
type Option func(*config)

type config struct {
	path   string
	watch  WatchMode
	rule   Rule
	policy Policy
}

// WithPath sets the election znode; candidates are its children.
func WithPath(p string) Option { return func(c *config) { c.path = p } }

// WithWatch chooses what followers watch: their predecessor (the default)
// or all the children, the herd of the first article.
func WithWatch(w WatchMode) Option { return func(c *config) { c.watch = w } }

// WithRule sets who blocks whom in the line; the default is Exclusive,
// the sequential election: one leads, each other waits for the one ahead.
func WithRule(r Rule) Option { return func(c *config) { c.rule = r } }

// WithPolicy chooses what a paused leader does; the default is AtMostOne.
func WithPolicy(p Policy) Option { return func(c *config) { c.policy = p } }

// newConfig applies opts to the defaults and checks the result in one place.
func newConfig(opts []Option) (config, error) {
	c := config{path: DefaultPath, rule: Exclusive{}}
	for _, opt := range opts {
		opt(&c)
	}
	if err := recoverable.ValidatePath("path", c.path); err != nil {
		return c, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := checkRule(c.rule); err != nil {
		return c, err
	}
	if c.watch.String() == "unknown" || c.policy.String() == "unknown" {
		return c, fmt.Errorf("%w: watch %d, policy %d", ErrInvalid, c.watch, c.policy)
	}
	return c, nil
}

// WatchMode says what a follower of the sequential election watches.
type WatchMode uint8

const (
	// WatchPredecessor watches only the next candidate ahead: one
	// notification per change, no herd. This is the ZooKeeper recipe.
	WatchPredecessor WatchMode = iota
	// WatchChildren watches the whole list of candidates, as the first
	// article did: every change wakes every candidate, the herd effect.
	WatchChildren
)

// String returns the mode as the --watch flag spells it.
func (w WatchMode) String() string {
	switch w {
	case WatchPredecessor:
		return "predecessor"
	case WatchChildren:
		return "children"
	default:
		return "unknown"
	}
}

// ParseWatchMode reads a --watch value.
func ParseWatchMode(s string) (WatchMode, error) {
	switch s {
	case "predecessor":
		return WatchPredecessor, nil
	case "children":
		return WatchChildren, nil
	}
	return 0, fmt.Errorf("%w: watch %q (want predecessor or children)", ErrInvalid, s)
}
