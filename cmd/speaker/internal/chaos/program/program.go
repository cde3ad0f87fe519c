// Package program is the chaos soak of a program of the user's, in any
// language: --cmd's template runs in the speaker's place, one process per
// slot, each behind its own proxies, and the core's checker judges what
// the contract of docs/chaos.md gives it: the lines the program appends
// while it believes it leads, overlaps explained only by the windows its
// --policy declares, and how it answers SIGTERM. The faults it cannot be
// told about are left out, and the report says so.
package program

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Name is the recipe's name, the value of --recipe that --cmd chooses.
const Name = "cmd"

// Path is the election's parent znode, which {path} gives the program.
const Path = "/election"

// Pace is the contract's longest gap between two lines of a leader, and
// between the moment a program may take over and its first line, unless
// the program declares a longer one (Config.Interval, --pace): one that
// polls rather than watches takes its period to notice.
const Pace = time.Second

// Recipe is the soak of the program that Config.Cmd runs.
var Recipe = chaos.Recipe{
	Name:  Name,
	Noun:  "processes of --cmd",
	Words: words(),
	// The program's own flags are in its template: --election and --fence
	// are the speaker's. Its epochs, when it writes any, must never go
	// down under at-most-one, which declares no window for two writers.
	// Its pace is the contract's, a line a second at least, or the one
	// it declares; the stall bound and the windows count with it.
	Settle: func(c *chaos.Config) {
		c.Election, c.Fence = "sequential", c.Policy == "at-most-one"
		if c.Interval <= 0 {
			c.Interval = Pace
		}
	},
	Path:  func(*chaos.Config) string { return Path },
	Slots: func(c *chaos.Config) []string { return chaos.Numbered("s", c.Speakers) },
	Program: func(c *chaos.Config) string {
		t, err := Parse(c.Cmd)
		if err != nil {
			return ""
		}
		p, _ := resolve(t.Program())
		return p
	},
	Argv: func(c *chaos.Config, name, servers string, _ *rand.Rand, _ int) []string {
		t, _ := Parse(c.Cmd) // Check refused a template that does not parse
		return t.Args(map[string]string{"servers": servers, "name": name, "out": c.Out(), "path": Path,
			"session": c.Session.String()})
	},
	Check: check,
	Layout: func(c *chaos.Config) chaos.Layout {
		if t, err := Parse(c.Cmd); err == nil && !t.Has("path") {
			return chaos.Layout{Unknown: "--cmd does not pass {path}, so the soak cannot find the program's znodes"}
		}
		return chaos.Layout{AnyNames: true}
	},
	Describe: func(c chaos.Config) string {
		return fmt.Sprintf("chaos: --cmd '%s', seed %d, %v, %d processes, %s%s, %s", c.Cmd, c.Seed, c.Duration, c.Speakers, c.Policy,
			paceWord(c.Interval), c.ServersWord())
	},
	Summary: summary,
}

// paceWord is ", pace D" for a pace the program declared, "" for the
// contract's.
func paceWord(d time.Duration) string {
	if d == Pace || d == 0 {
		return ""
	}
	return fmt.Sprintf(", pace %v", d)
}

// summary is the election's line of what the processes did, and, when the
// program declared a pace of its own, what it allows: a slow program's
// long handovers are what it declared, which the fault table shows.
func summary(in chaos.Input, r chaos.Report) string {
	if in.Interval == Pace {
		return "" // the election's line
	}
	line := fmt.Sprintf("lines %d, writers %d (%s), terms %d", r.Lines, len(r.Writers), strings.Join(r.Writers, ", "), r.Terms)
	bound := in.Session + in.Tick + in.Interval + in.Slack
	return fmt.Sprintf("%s\npace %v, as the program declared (--pace): a line from the leader at least every %v, and a silence after the faults heal is a stall only past S + tick + pace + %v = %v",
		line, in.Interval, in.Interval, in.Slack, bound)
}

// check refuses a template that does not parse, or whose program is not
// there, in one line that names --cmd.
func check(c *chaos.Config) error {
	t, err := Parse(c.Cmd)
	if err != nil {
		return fmt.Errorf("%w: %w", chaos.ErrConfig, err)
	}
	if _, err := resolve(t.Program()); err != nil {
		return fmt.Errorf("%w: --cmd runs %s, which is not there or not executable", chaos.ErrConfig, t.Program())
	}
	return nil
}

// resolve finds the program as a shell would, and makes its path absolute.
func resolve(program string) (string, error) {
	p, err := exec.LookPath(program)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// words are the election's, but the lanes show the program under test.
func words() chaos.Words {
	w := chaos.ElectionWords
	w.Green = "the program under test writing"
	return w
}
