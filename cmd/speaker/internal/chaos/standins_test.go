package chaos

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"zkspeaker/internal/testkit/sabotage"
)

// The core's own tests run stand-ins for the recipes, whose packages
// import the core and so cannot be imported by its tests: each stand-in
// has only what its tests need.
var (
	// turns is a recipe whose processes take turns as a lock's do: what
	// its faults hit is the holder.
	turns = Recipe{Name: "turns", Words: Words{Lead: "holder", DeleteKind: "delete-holder"}}
	// sideBySide is a recipe whose processes stand side by side, as a
	// group's members do: no leader, and every znode is one process's.
	sideBySide = Recipe{Name: "side-by-side", Words: Words{DeleteKind: "delete-member"}, Members: true}
	// election runs speakers, as the speaker's own recipe does.
	election = Recipe{
		Name:  "election",
		Words: ElectionWords,
		Path:  func(*Config) string { return "/election" },
		Slots: func(c *Config) []string { return Numbered("s", c.Speakers) },
		Argv: func(c *Config, name, servers string, _ *rand.Rand, _ int) []string {
			return []string{"--servers", servers, "--name", name, "--out", c.Out(), "--interval", c.Interval.String(),
				"--session-timeout", c.Session.String(), "--election", c.Election, "--policy", c.Policy,
				fmt.Sprintf("--fence=%v", c.Fence), "--log-level", "info"}
		},
		Started: func(string) string { return `msg="speaker started"` },
	}
)

func init() { Register(turns, sideBySide, election) }

// t0 is when every synthetic soak of the core's inner tests begins.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// faultAt is a fault of kind k on target from start to end into the soak.
func faultAt(k Kind, target string, start, end time.Duration, leader bool) Fault {
	return Fault{Kind: k, Target: target, Start: t0.Add(start), End: t0.Add(end), Leader: leader}
}

// builtSpeaker builds the speaker once per test binary, and returns its
// path.
func builtSpeaker(t *testing.T) string {
	t.Helper()
	dir, err := sabotage.Built(nil, "zkspeaker/cmd/speaker")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "speaker")
}

// What the external tests see of the core's inner parts.
var SumUp = sumUp
