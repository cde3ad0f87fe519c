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
func Recipes() []string {
	return []string{RecipeSpeaker, RecipeLock, RecipeGroup, RecipeConfig, RecipeSeqid}
}

// lockPath is the lock's znode in a lock soak.
const lockPath = "/chaos-lock"

// processNoun names the recipe's processes, for the progress lines.
func (c *Config) processNoun() string {
	switch c.Recipe {
	case RecipeLock:
		return "zklock contenders"
	case RecipeSeqid:
		return fmt.Sprintf("seqid workers and %d persisters", seqidPersisters)
	case RecipeGroup:
		return "group members and a watcher"
	case RecipeConfig:
		return "config updaters, each with a watcher"
	}
	return "speakers"
}

// binary returns the program the soak's processes run: the speaker, or
// the command beside it, where `make build` puts them all.
func (c *Config) binary() string {
	switch c.Recipe {
	case RecipeLock:
		return filepath.Join(filepath.Dir(c.Speaker), "zklock")
	case RecipeSeqid:
		return filepath.Join(filepath.Dir(c.Speaker), "seqid")
	case RecipeGroup:
		return filepath.Join(filepath.Dir(c.Speaker), "zkgroup")
	case RecipeConfig:
		return filepath.Join(filepath.Dir(c.Speaker), "zkconfig")
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
// servers are addrs (its proxies), in its life'th run; rng draws what
// varies from one start to the next (a lock holder's time in the critical
// section).
func (c *Config) argv(name string, addrs []string, rng *rand.Rand, life int) []string {
	servers := strings.Join(addrs, ",")
	out := filepath.Join(c.Dir, "out.txt")
	switch c.Recipe {
	case RecipeSeqid:
		return c.seqidArgv(name, servers, 1+rng.IntN(seqidMaxCount))
	case RecipeGroup:
		return c.groupArgv(name, servers)
	case RecipeConfig:
		return c.configArgv(name, servers, life)
	}
	if c.Recipe == RecipeLock {
		hold := c.Session/2 + time.Duration(rng.Int64N(int64(c.Session*3)))
		if c.Hold > 0 {
			hold = c.Hold
		}
		return []string{"--servers", servers, "--path", lockPath, "--name", name,
			"--session-timeout", c.Session.String(), "--policy", c.Policy, "--grace", (c.Session / 2).String(),
			"--log-level", "info", "--",
			c.Speaker, "chaos-work", "--name", name, "--out", out, "--interval", c.Interval.String(), "--for", hold.Round(time.Millisecond).String(),
			fmt.Sprintf("--fence=%v", c.Fence)}
	}
	return []string{"--servers", servers, "--name", name, "--out", out, "--interval", c.Interval.String(),
		"--session-timeout", c.Session.String(), "--election", c.Election, "--policy", c.Policy,
		fmt.Sprintf("--fence=%v", c.Fence), "--log-level", "info"}
}

// startedLine is what the process called name logs once it handles
// SIGTERM.
func (c *Config) startedLine(name string) string {
	switch {
	case c.Recipe == RecipeLock:
		return `msg="waiting for the lock"`
	case c.Recipe == RecipeSeqid && isWorker(name):
		return `msg="connecting to ZooKeeper"`
	case c.Recipe == RecipeSeqid:
		return `msg="standing for election as a persistence process"`
	case c.Recipe == RecipeGroup:
		return `msg="joined the group"` // the watcher is ready at its first line
	case c.Recipe == RecipeConfig && isUpdater(name):
		return `msg="connecting to ZooKeeper"`
	case c.Recipe == RecipeConfig:
		return `msg="watching `
	}
	return `msg="speaker started"`
}

// respawns says whether the process called name is started again when it
// ends on its own: a zklock contender ends when its CMD does, a seqid
// worker when it has its IDs, and each goes again.
func (c *Config) respawns(name string) bool {
	return c.Recipe == RecipeLock || c.Recipe == RecipeGroup || c.Recipe == RecipeConfig || (c.Recipe == RecipeSeqid && isWorker(name))
}

// goodStatus says whether an exit status after SIGTERM is a graceful one:
// 0; for zklock, which exits with its CMD's status, also 130 (interrupted
// while waiting for the lock) and 137 (its watchdog killed a CMD that had
// not ended by the moment the session might expire: on a loaded machine,
// a CMD between a line and its fsync may not be let finish) and 143 (a CMD
// just started, signalled before it handles SIGTERM, ends by it). A seqid
// worker or a config updater is a command that ends on its own, whose
// status tells how its one call went (no such sequence during a data
// loss, no server): any status is its own, and only a signal or the
// limit makes its exit a bad one. A group member is the same.
func (c *Config) goodStatus(name string, status int) bool {
	switch {
	case status == 0:
		return true
	case c.Recipe == RecipeLock:
		return status == 130 || status == 137 || status == 143
	case c.Recipe == RecipeSeqid:
		return isWorker(name)
	case c.Recipe == RecipeConfig:
		return isUpdater(name)
	case c.Recipe == RecipeGroup:
		// A member that cannot leave at once (ZooKeeper out of reach)
		// says so and exits 1, as zkgroup join documents; only a signal
		// or the limit is a bad exit.
		return name != watcherName
	}
	return false
}

// validRecipe reports whether r is one of Recipes.
func validRecipe(r string) bool { return slices.Contains(Recipes(), r) }

// weights is how often each kind is drawn in this recipe's soak.
func (c *Config) weights() [numKinds]int {
	w := weights
	switch c.Recipe {
	case RecipeSeqid:
		w[DataLoss] = 8
	case RecipeGroup, RecipeConfig:
		// Deleting the group ends every member, as the chapter's
		// DeleteGroup means it to: a different program. Deleting every
		// key at once is no fault of the service's either.
		w[DeletePath] = 0
	}
	return w
}

// stallBound is how long after the faults heal the recipe must be heard
// from again, when it differs from the speaker's session + tick + interval
// + slack (0). After a total loss, a persister may first need two session
// timeouts to give up on its client (the servers refuse one that has seen
// their lost transactions), then an election and a raise: three sessions.
// A group's readings wait for the operator's client to reconnect.
func (c *Config) stallBound() time.Duration {
	switch c.Recipe {
	case RecipeSeqid:
		return 3*c.Session + c.Tick + c.Interval + Slack
	case RecipeGroup:
		// The lines are the operator's readings: after a server comes
		// back, its own client must reconnect (go-zookeeper backs off
		// between tries) before it reads again. Whether the members are
		// right is the listing check's, with its own bound.
		return 2*c.Session + c.Tick + c.Interval + Slack
	}
	return 0
}

// words are the recipe's own names, for its report, progress lines and
// picture.
func (c *Config) words() words { return wordsOf(c.Recipe) }

// slotNames are the names of the soak's processes, in start order.
func (c *Config) slotNames() []string {
	var names []string
	if c.Recipe == RecipeConfig {
		for _, role := range []string{"u", "v"} {
			for i := range c.Speakers {
				names = append(names, fmt.Sprintf("%s%d", role, i+1))
			}
		}
		return names
	}
	if c.Recipe == RecipeGroup {
		for i := range c.Speakers {
			names = append(names, fmt.Sprintf("m%d", i+1))
		}
		return append(names, watcherName)
	}
	if c.Recipe == RecipeSeqid {
		for i := range seqidPersisters {
			names = append(names, fmt.Sprintf("p%d", i+1))
		}
		for i := range c.Speakers {
			names = append(names, fmt.Sprintf("w%d", i+1))
		}
		return names
	}
	for i := range c.Speakers {
		names = append(names, fmt.Sprintf("s%d", i+1))
	}
	return names
}
