// Package barrier is the chaos soak of zkbarrier's double barrier: one
// member process per slot, as many as the barrier's count, each in a
// loop: `zkbarrier run --count N`, whose CMD (`speaker chaos-work`) writes
// a line every interval for a while with its round (ZKBARRIER_ROUND) as
// the line's epoch, then leave, then again. Every round needs every slot,
// so the checker can tell a round that opened too early, and the
// members' logs say when each saw its round empty (check.go).
package barrier

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Name is the recipe's name, the value of --recipe.
const Name = "barrier"

// path is the double barrier's znode in a soak.
const path = "/chaos-barrier"

// Recipe is the double barrier's soak, as the core runs and checks it.
var Recipe = chaos.Recipe{
	Name:    Name,
	Command: "zkbarrier",
	Noun:    "zkbarrier members",
	Words:   words,
	Settle:  chaos.SideBySide,
	// Deleting the barrier's znode takes its record of the count: the
	// members fail and start again, a different program.
	Weights: map[chaos.Kind]int{chaos.DeletePath: 0},
	Path:    func(*chaos.Config) string { return path },
	Layout:  func(*chaos.Config) chaos.Layout { return chaos.Layout{AnyNames: true} },
	Slots:   func(c *chaos.Config) []string { return chaos.Numbered("s", c.Speakers) },
	Argv:    argv,
	Started: func(string) string { return `msg="entering the double barrier"` },
	// A member ends when its round has left, and goes again.
	Respawns: func(string) bool { return true },
	// 130: interrupted while entering or leaving; 143: CMD ended by the
	// SIGTERM it was handed; 1: its place was lost inside and CMD then
	// exited 0.
	GoodStatus: func(_ string, status int) bool { return status == 130 || status == 143 || status == 1 },
	// Between rounds no CMD writes: a member killed inside holds its round
	// for a session, and the next round starts once every slot is back in.
	StallBound: func(c *chaos.Config) time.Duration { return 2*c.Session + c.Tick + c.Interval + chaos.Slack },
	Check: func(c *chaos.Config) error {
		if c.Speakers < 2 {
			return fmt.Errorf("%w: --speakers must be 2 or more for --recipe barrier: the count is the number of members", chaos.ErrConfig)
		}
		return nil
	},
	Describe: chaos.Config.Brief,
	// The ready znode is persistent, and removed by the next round when
	// the last one out could not: the checker looks for member znodes
	// left behind instead (LeftBehind).
	NoLeaks: true,
	Begin:   begin,
	Summary: summary,
	Checker: &chaos.Checker{
		Check:     check,
		NotLooked: "overlaps: not looked for (a round's CMDs run side by side)",
		NoLeaks:   "leftover znodes: the members' are looked for by the barrier's own check",
	},
}

// argv is a member's command line: CMD writes a line every interval for
// a time drawn from S/2 to 2 S (or Config.Hold), with its round as the
// lines' epoch.
func argv(c *chaos.Config, name, servers string, rng *rand.Rand, _ int) []string {
	hold := c.Session/2 + time.Duration(rng.Int64N(int64(c.Session*3/2)))
	if c.Hold > 0 {
		hold = c.Hold
	}
	return []string{"run", "--servers", servers, "--session-timeout", c.Session.String(), "--count", strconv.Itoa(c.Speakers),
		"--name", name, "--log-level", "info", path, "--",
		"/bin/sh", "-c", `ZKLOCK_EPOCH="$ZKBARRIER_ROUND" exec "$0" "$@"`,
		c.Speaker, "chaos-work", "--name", name, "--out", c.Out(), "--interval", c.Interval.String(),
		"--for", hold.Round(time.Millisecond).String()}
}

// summary is the report's line of what the members did.
func summary(in chaos.Input, rep chaos.Report) string {
	lines, _ := chaos.ReadLines(in.Out)
	secs := sections(lines)
	return fmt.Sprintf("lines of CMD %d, rounds %d, CMDs %d, members that ran CMD %d, members out %d",
		rep.Lines, len(rounds(secs)), len(secs), len(rep.Writers), len(record(in).Leaves))
}

// words are the barrier's: members and rounds.
var words = chaos.Words{
	Lead:    "last writer",
	Counts:  chaos.OnTheSubject,
	Columns: []string{"on the last writer", "min", "median", "max", "no line after"},
	Key: []string{"(n: faults injected; on the last writer: those that hit the member whose CMD wrote last,",
		" with min/median/max of the time from the fault to the next line of CMD by any member;",
		" no line after: those with no line of CMD after them before the end)"},
	DeleteKind: "delete-member",
	Silence:    "no line of CMD from", Bound: "2 × session + tick + interval + slack after the silence began or the last fault healed",
	Green: "a member's CMD writing, inside the barrier", Wrote: "its CMD wrote, inside the barrier,",
	Checker: "rounds not together in or out, and stalls", Overlaps: "overlapping CMDs",
}
