package znodemonitor

import (
	"fmt"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// DefaultPath is the znode the candidates race to create.
const DefaultPath = "/speaker"

// Option configures a Monitor.
type Option func(*config)

type config struct {
	path   string
	policy nodemonitor.Policy
}

// WithPath sets the znode that the candidates race to create. Its parents
// are created as needed.
func WithPath(p string) Option { return func(c *config) { c.path = p } }

// WithPolicy chooses what a paused leader does; the default is
// nodemonitor.AtMostOne.
func WithPolicy(p nodemonitor.Policy) Option { return func(c *config) { c.policy = p } }

// newConfig applies opts to the defaults and checks the result in one place.
func newConfig(opts []Option) (config, error) {
	c := config{path: DefaultPath}
	for _, opt := range opts {
		opt(&c)
	}
	if err := recoverable.ValidatePath("path", c.path); err != nil {
		return c, fmt.Errorf("%w: %w", nodemonitor.ErrInvalid, err)
	}
	if c.policy.String() == "unknown" {
		return c, fmt.Errorf("%w: policy %d", nodemonitor.ErrInvalid, c.policy)
	}
	return c, nil
}
