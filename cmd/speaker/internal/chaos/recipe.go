package chaos

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// Recipe is a program a soak can run, as its own package registers it:
// how its processes are named, started and judged when they end, what the
// soak prepares and records for it, what its checker looks for, and the
// words its report speaks. Each stands as --speakers processes or more,
// each behind fault proxies of its own; its record goes to the one
// out.txt in the speaker's line format, so that one checker serves all.
// Name, Path, Slots and Argv are needed to run a soak; a nil hook among
// the others means the election's way: processes judged by their
// overlaps, in the election's words.
type Recipe struct {
	// Name is the value of Config.Recipe and --recipe.
	Name string
	// Default makes it the recipe of a Config that names none.
	Default bool
	// Command is the program its processes run, beside the speaker
	// binary, where `make build` puts them all; "" runs the speaker.
	Command string
	// Noun names its processes for the progress lines.
	Noun string
	// Words are its names for what the report, the progress lines and
	// the picture show.
	Words Words
	// Settle fixes what the recipe decides of the Config itself (its
	// election, policy, fence), before the Config is checked.
	Settle func(c *Config)
	// DataLoss says the recipe can restore after a total loss of
	// ZooKeeper's data: Running.Restore; only such a recipe draws it.
	DataLoss bool
	// Weights replaces the draw's weights of some kinds.
	Weights map[Kind]int
	// Path is the znode under which its processes stand, which the
	// operator's deletes take and whose leftovers are leaks.
	Path func(c *Config) string
	// Slots names the soak's processes, in start order.
	Slots func(c *Config) []string
	// Argv is the command line of the process called name, whose servers
	// are its proxies, in its life'th run; rng draws what varies from one
	// start to the next.
	Argv func(c *Config, name, servers string, rng *rand.Rand, life int) []string
	// Started is what the process called name logs once it handles
	// SIGTERM; nil for a program whose log the soak cannot read: it has
	// started once it connects to ZooKeeper through one of its proxies.
	Started func(name string) string
	// Program is the program its processes run when it is none of ours
	// (Command): a program of the user's (Config.Cmd), as exec finds it.
	Program func(c *Config) string
	// Check refuses a Config the recipe cannot run, in one line that
	// names the flag, before anything is created.
	Check func(c *Config) error
	// Layout says what the soak knows of the znodes of a program it did
	// not write; nil for our own.
	Layout func(c *Config) Layout
	// Respawns says whether the process called name starts again when it
	// ends on its own.
	Respawns func(name string) bool
	// GoodStatus says which nonzero exit statuses after SIGTERM are
	// graceful.
	GoodStatus func(name string, status int) bool
	// StallBound is how long after the faults heal it must be heard from
	// again, when not the session + tick + interval + slack.
	StallBound func(c *Config) time.Duration
	// Describe is the soak's one-line description.
	Describe func(c Config) string
	// Files are what its soak leaves in Dir besides every soak's record.
	Files string
	// ByZnode names the leader by the lowest candidate's znode, not by
	// the out file's last line; Members says the znodes under Path are
	// all the soak's, each one process's, rather than election candidates.
	ByZnode, Members bool
	// NoLeaks says its znodes are persistent: none is looked for at the end.
	NoLeaks bool
	// Begin prepares what the recipe needs before its processes start,
	// and returns what it keeps during the soak.
	Begin func(ctx context.Context, env *Env) (*Running, error)
	// Summary is the report's line of what the processes did; nil for the
	// election's.
	Summary func(in Input, r Report) string
	// Checker holds the soak to the recipe's own rules instead of
	// overlaps, and sums up the report; nil for an election's.
	Checker *Checker
	// Picture draws the recipe's own lanes; nil for the writers' stretches.
	Picture *Picture
}

// Checker is a recipe's own part of the checker.
type Checker struct {
	// Check returns the recipe's findings, in the summary's order.
	Check func(in Input, lines []Line) []Section
	// NotLooked is the line that says why overlaps are not looked for.
	NotLooked string
	// Measure returns what the fault table measures after a fault; nil
	// for the election's next line after a fault on the leader.
	Measure func(in Input, lines []Line) func(Fault) Outcome
	// LeftOut says the table counts the faults measured (Handover.LeftOut).
	LeftOut bool
	// NoLeaks is the summary's line when Recipe.NoLeaks.
	NoLeaks string
}

// Picture is a recipe's own part of the picture.
type Picture struct {
	// Bars are the process lanes' bars; Lanes are lanes drawn even
	// without one.
	Bars  func(in Input) []Bar
	Lanes func(in Input) []string
	// LaneOf is the lane of an operator's delete (DeleteLeader), "" for
	// the ZooKeeper lane.
	LaneOf func(f Fault) string
	// Key is a line of the picture's key, after the green's.
	Key string
}

var registry = struct {
	mu      sync.Mutex
	recipes []Recipe
}{}

// Register adds recipes, in the order that Recipes lists them; a recipe
// registered again replaces the one of its name.
func Register(rs ...Recipe) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, r := range rs {
		i := slices.IndexFunc(registry.recipes, func(x Recipe) bool { return x.Name == r.Name })
		if i >= 0 {
			registry.recipes[i] = r
			continue
		}
		registry.recipes = append(registry.recipes, r)
	}
}

// Recipes lists the values of Config.Recipe.
func Recipes() []string {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	var out []string
	for _, r := range registry.recipes {
		out = append(out, r.Name)
	}
	return out
}

// DefaultRecipe is the recipe of a Config that names none.
func DefaultRecipe() string { return recipeNamed("").Name }

// recipeNamed returns the registered recipe of the name, the default one
// for "", and a recipe with the election's ways and words when there is
// none.
func recipeNamed(name string) Recipe {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, r := range registry.recipes {
		if r.Name == name || name == "" && r.Default {
			return r
		}
	}
	return Recipe{Name: name, Words: ElectionWords}
}
