// Package speaker is the chaos soak of the speaker itself: --speakers
// processes stand in one election, and the leader writes a line every
// interval. The core's checker judges it as it is: two writers at once
// are an overlap, explained only by a documented window.
package speaker

import (
	"fmt"
	"math/rand/v2"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Name is the recipe's name, the value of --recipe.
const Name = "speaker"

// Recipe is the speaker's soak, as the core runs and checks it.
var Recipe = chaos.Recipe{
	Name:    Name,
	Default: true,
	Words:   chaos.ElectionWords,
	Path: func(c *chaos.Config) string {
		if c.Election == "single-file" {
			return "/speaker"
		}
		return "/election"
	},
	Slots: func(c *chaos.Config) []string { return chaos.Numbered("s", c.Speakers) },
	Argv: func(c *chaos.Config, name, servers string, _ *rand.Rand, _ int) []string {
		return []string{"--servers", servers, "--name", name, "--out", c.Out(), "--interval", c.Interval.String(),
			"--session-timeout", c.Session.String(), "--election", c.Election, "--policy", c.Policy,
			fmt.Sprintf("--fence=%v", c.Fence), "--log-level", "info"}
	},
	Started: func(string) string { return `msg="speaker started"` },
}
