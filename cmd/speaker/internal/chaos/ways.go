package chaos

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// recipe is the Config's recipe.
func (c *Config) recipe() Recipe { return recipeNamed(c.Recipe) }

// validRecipe reports whether r is one of Recipes.
func validRecipe(r string) bool { return slices.Contains(Recipes(), r) }

// processNoun names the recipe's processes, for the progress lines.
func (c *Config) processNoun() string {
	if n := c.recipe().Noun; n != "" {
		return n
	}
	return "speakers"
}

// binary returns the program the soak's processes run.
func (c *Config) binary() string {
	if p := c.recipe().Program; p != nil {
		return p(c)
	}
	if cmd := c.recipe().Command; cmd != "" {
		return filepath.Join(filepath.Dir(c.Speaker), cmd)
	}
	return c.Speaker
}

// checkBinaries refuses a soak whose program is not beside the speaker.
func (c *Config) checkBinaries() error {
	if _, err := os.Stat(c.binary()); err != nil {
		return fmt.Errorf("%w: --recipe %s runs %s, which is not there: run make build, or copy all of bin/", ErrConfig, c.Recipe, c.binary())
	}
	return nil
}

// argv is the command line of the process called name, whose servers are
// addrs (its proxies), in its life'th run.
func (c *Config) argv(name string, addrs []string, rng *rand.Rand, life int) []string {
	return c.recipe().Argv(c, name, joinAddrs(addrs), rng, life)
}

// startedLine is what the process called name logs once it handles
// SIGTERM, "" when the process says nothing the soak can read.
func (c *Config) startedLine(name string) string {
	if st := c.recipe().Started; st != nil {
		return st(name)
	}
	return ""
}

// respawns says whether the process called name is started again when it
// ends on its own.
func (c *Config) respawns(name string) bool {
	r := c.recipe().Respawns
	return r != nil && r(name)
}

// goodStatus says whether an exit status after SIGTERM is a graceful one.
func (c *Config) goodStatus(name string, status int) bool {
	g := c.recipe().GoodStatus
	return status == 0 || g != nil && g(name, status)
}

// weights is how often each kind is drawn in this recipe's soak.
func (c *Config) weights() [numKinds]int {
	w := weights
	for k, n := range c.recipe().Weights {
		w[k] = n
	}
	if c.layout().Unknown != "" {
		for _, k := range Blind {
			w[k] = 0
		}
	}
	return w
}

// stallBound is how long after the faults heal the recipe must be heard
// from again, when it differs from the session + tick + interval + slack
// (0).
func (c *Config) stallBound() time.Duration {
	if b := c.recipe().StallBound; b != nil {
		return b(c)
	}
	return 0
}

// words are the recipe's own names, for its report, progress lines and
// picture.
func (c *Config) words() Words { return c.recipe().Words }

// slotNames are the names of the soak's processes, in start order.
func (c *Config) slotNames() []string { return c.recipe().Slots(c) }

// Numbered names n processes prefix1, prefix2…: the slots of a recipe.
func Numbered(prefix string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return names
}
