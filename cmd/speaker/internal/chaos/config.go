package chaos

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Config is one soak.
type Config struct {
	// Recipe is the program under test, one of Recipes; "" is
	// DefaultRecipe.
	Recipe string
	// Cmd is the command line of a program of the user's, for a recipe
	// that runs one (Recipe.Program): what --cmd gives.
	Cmd string
	// Seed makes the faults, their targets, durations and moments
	// reproducible: the same seed draws the same plan.
	Seed int64
	// Duration is how long faults are injected.
	Duration time.Duration
	// Speakers is how many speaker processes stand.
	Speakers int
	// Election, Policy and Fence are the speakers' --election, --policy
	// and --fence.
	Election, Policy string
	Fence            bool
	// SeqidMode is the mode of the sequence a seqid soak creates
	// (seqid create --mode): "counter" or "cas"; "" is counter.
	SeqidMode string
	// Kinds limits the faults to these kinds; empty means every kind.
	Kinds []Kind
	// Hold is how long a process holds what it takes, for a recipe whose
	// processes take turns; 0 draws each from S/2 to 3.5 S. A soak of a broken build sets it
	// long, so that every fault that takes its turn away finds it
	// still at work.
	Hold time.Duration
	// Servers is 1 (standalone) or 3 (an ensemble, which can lose a
	// server, its leader, or its quorum).
	Servers int
	// Speaker is the speaker binary. The other recipes run the command of
	// their name from the same folder, and their helpers from it.
	Speaker string
	// Dir receives out.txt, each speaker's log, faults.log, summary.txt
	// and timeline.svg. It must be empty or missing.
	Dir string
	// Interval and Session are the speakers' --interval and
	// --session-timeout; Tick is the servers' tick.
	Interval, Session, Tick time.Duration
	// Progress receives a line per fault as it happens; nil for none.
	Progress io.Writer
}

// Defaults for the timing: short, so that a 30-second soak sees its
// sessions expire many times over.
const (
	DefaultInterval = 200 * time.Millisecond
	DefaultSession  = 2 * time.Second
	DefaultTick     = 200 * time.Millisecond
)

// ErrConfig marks a Config that cannot run.
var ErrConfig = errors.New("chaos: bad configuration")

// Validate refuses a Config that cannot run, naming the field as the
// command's flag, in one line. It creates nothing.
func Validate(c Config) error {
	if err := c.check(); err != nil {
		return err
	}
	if c.Servers == 1 && len(c.Kinds) > 0 && !slices.ContainsFunc(c.Kinds, func(k Kind) bool { return k != QuorumLoss }) {
		return fmt.Errorf("%w: --faults quorum-loss needs --servers 3: one server has no quorum to lose", ErrConfig)
	}
	if entries, err := os.ReadDir(c.Dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: --dir %s is not empty: one soak's files are never mixed with another's", ErrConfig, c.Dir)
	}
	return nil
}

// check is Validate, and fills in the default timings.
func (c *Config) check() error {
	if c.Recipe == "" {
		c.Recipe = DefaultRecipe()
	}
	if settle := c.recipe().Settle; settle != nil {
		settle(c)
	}
	if slices.Contains(c.Kinds, DataLoss) && !c.recipe().DataLoss {
		return fmt.Errorf("%w: --faults data-loss is for --recipe %s, which can restore from its store", ErrConfig, strings.Join(restorers(), ", "))
	}
	switch {
	case !validRecipe(c.Recipe):
		return fmt.Errorf("%w: --recipe must be one of %s", ErrConfig, strings.Join(Recipes(), ", "))
	case c.Duration <= 0:
		return fmt.Errorf("%w: --duration must be above 0", ErrConfig)
	case c.Speakers < 2 || c.Speakers > 9:
		return fmt.Errorf("%w: --speakers must be 2 to 9", ErrConfig)
	case c.Election != "sequential" && c.Election != "single-file":
		return fmt.Errorf("%w: --election must be sequential or single-file", ErrConfig)
	case c.Policy != "at-most-one" && c.Policy != "at-least-one":
		return fmt.Errorf("%w: --policy must be at-most-one or at-least-one", ErrConfig)
	case c.Fence && c.Policy != "at-most-one":
		return fmt.Errorf("%w: --fence works with --policy at-most-one only", ErrConfig)
	case c.Servers != 1 && c.Servers != 3:
		return fmt.Errorf("%w: --servers must be 1 or 3", ErrConfig)
	case c.Interval < 0 || c.Session < 0 || c.Tick < 0:
		return fmt.Errorf("%w: the timings must not be negative", ErrConfig)
	case c.Speaker == "" || c.Dir == "":
		return fmt.Errorf("%w: the speaker binary and the output folder are needed", ErrConfig)
	case c.Cmd != "" && c.recipe().Program == nil:
		return fmt.Errorf("%w: --cmd runs a program of yours in place of ours, and --recipe %s runs ours: give one of them", ErrConfig, c.Recipe)
	}
	if own := c.recipe().Check; own != nil {
		if err := own(c); err != nil {
			return err
		}
	}
	if err := c.checkBlind(); err != nil {
		return err
	}
	if err := c.checkBinaries(); err != nil {
		return err
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Session <= 0 {
		c.Session = DefaultSession
	}
	if c.Tick <= 0 {
		c.Tick = DefaultTick
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return nil
}

// electionPath is where the processes' znodes are, as the recipe says.
func (c *Config) electionPath() string { return c.recipe().Path(c) }

// Out is the out file that every process's record goes to.
func (c *Config) Out() string { return filepath.Join(c.Dir, "out.txt") }

// restorers are the recipes that can restore after a DataLoss.
func restorers() []string {
	var out []string
	for _, name := range Recipes() {
		if recipeNamed(name).DataLoss {
			out = append(out, name)
		}
	}
	return out
}

// String describes the soak in one line, as the summary and the picture
// title it.
func (c Config) String() string {
	if d := c.recipe().Describe; d != nil {
		return d(c)
	}
	fence := "no fence"
	if c.Fence {
		fence = "fence"
	}
	return fmt.Sprintf("chaos: seed %d, %v, %d speakers, %s, %s, %s, %s", c.Seed, c.Duration, c.Speakers, c.Election, c.Policy, fence, c.ServersWord())
}

// ServersWord says how many servers the soak runs, as its description
// does: "1 server", "3 servers".
func (c Config) ServersWord() string {
	if c.Servers == 1 {
		return "1 server"
	}
	return "3 servers"
}

// Noun names the soak's processes, as the progress lines do.
func (c Config) Noun() string { return c.processNoun() }

// Files names what a soak leaves in Dir, as the command's last line and
// docs/chaos.md list them: the record every soak has, and the recipe's own.
func (c Config) Files() string {
	files := "summary.txt, faults.log, timeline.svg, out.txt, logs/"
	if own := c.recipe().Files; own != "" {
		files += ", " + own
	}
	return files
}

// Brief is the one-line description of a soak whose processes stand side
// by side, with no election of the user's choosing: recipe, seed,
// duration, processes and servers.
func (c Config) Brief() string {
	return fmt.Sprintf("chaos: %s, seed %d, %v, %d %s, %s", c.Recipe, c.Seed, c.Duration, c.Speakers, c.Noun(), c.ServersWord())
}

// SideBySide settles the Config of a recipe whose processes stand side by
// side, with no election of the user's choosing: Election only steers the
// operator's deletes, the lines carry no epoch to fence, and the policy is
// the engine's default unless one is given.
func SideBySide(c *Config) {
	c.Election, c.Fence = "sequential", false
	if c.Policy == "" {
		c.Policy = "at-most-one"
	}
}
