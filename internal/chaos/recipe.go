package chaos

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The programs a soak can run. Each stands as --speakers processes, each
// behind fault proxies of its own, and writes to the one out.txt in the
// speaker's line format, so that one exact checker serves them all.
const (
	// RecipeSpeaker runs speakers: the leader writes a line every interval.
	RecipeSpeaker = "speaker"
	// RecipeLock runs zklock contenders for one lock, each in a loop:
	// wait, hold the lock while CMD runs for a while, release, start
	// again. CMD is `speaker chaos-work`: a line every interval, with
	// ZKLOCK_EPOCH as its epoch, for as long as it runs. A critical
	// section is the span of one CMD's lines, so two holders at once
	// are two lives whose lines interleave.
	RecipeLock = "lock"
)

// Recipes lists the values of Config.Recipe.
func Recipes() []string { return []string{RecipeSpeaker, RecipeLock} }

// lockPath is the lock's znode in a lock soak.
const lockPath = "/chaos-lock"

// processNoun names one process of the recipe, for the progress lines.
func (c *Config) processNoun() string {
	if c.Recipe == RecipeLock {
		return "zklock contenders"
	}
	return "speakers"
}

// binary returns the program the soak's processes run: the speaker, or
// the command beside it, where `make build` puts them all.
func (c *Config) binary() string {
	if c.Recipe == RecipeLock {
		return filepath.Join(filepath.Dir(c.Speaker), "zklock")
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

// argv is the command line of the process called name, whose ZooKeeper
// servers are addrs (its proxies); rng draws what varies from one start to
// the next (a lock holder's time in the critical section).
func (c *Config) argv(name string, addrs []string, rng *rand.Rand) []string {
	servers := strings.Join(addrs, ",")
	out := filepath.Join(c.Dir, "out.txt")
	if c.Recipe == RecipeLock {
		hold := c.Session/2 + time.Duration(rng.Int64N(int64(c.Session*3)))
		return []string{"--servers", servers, "--path", lockPath, "--name", name,
			"--session-timeout", c.Session.String(), "--policy", c.Policy, "--grace", (c.Session / 2).String(),
			"--log-level", "info", "--",
			c.Speaker, "chaos-work", "--name", name, "--out", out, "--interval", c.Interval.String(), "--for", hold.Round(time.Millisecond).String()}
	}
	return []string{"--servers", servers, "--name", name, "--out", out, "--interval", c.Interval.String(),
		"--session-timeout", c.Session.String(), "--election", c.Election, "--policy", c.Policy,
		fmt.Sprintf("--fence=%v", c.Fence), "--log-level", "info"}
}

// startedLine is what a process logs once it handles SIGTERM.
func (c *Config) startedLine() string {
	if c.Recipe == RecipeLock {
		return `msg="waiting for the lock"`
	}
	return `msg="speaker started"`
}

// respawns says whether a process that ends on its own is started again:
// a zklock contender ends when its CMD does, and contends again.
func (c *Config) respawns() bool { return c.Recipe == RecipeLock }

// goodStatus says whether an exit status after SIGTERM is a graceful one:
// 0, and for zklock also 130, interrupted while waiting for the lock.
func (c *Config) goodStatus(status int) bool {
	return status == 0 || (c.Recipe == RecipeLock && status == 130)
}

// validRecipe reports whether r is one of Recipes.
func validRecipe(r string) bool { return slices.Contains(Recipes(), r) }
