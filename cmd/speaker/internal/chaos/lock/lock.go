// Package lock is the chaos soak of zklock: contenders for one lock, each
// in a loop: wait, hold the lock while CMD runs for a while, release,
// start again. CMD is `speaker chaos-work` (Work): a line every interval,
// with ZKLOCK_EPOCH as its epoch, for as long as it runs. A critical
// section is the span of one CMD's lines, so two holders at once are two
// lives whose lines interleave, which the core's checker reads as an
// overlap, as for two speakers.
package lock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

// Name is the recipe's name, the value of --recipe.
const Name = "lock"

// path is the lock's znode in a lock soak.
const path = "/chaos-lock"

// Recipe is the lock's soak, as the core runs and checks it.
var Recipe = Contenders(Name, path, nil)

// Contenders is the recipe of a soak of zklock contenders on path, as the
// lock's: each in a loop, holding while CMD (Work) writes; flags are a
// contender's own zklock flags (--shared for a reader, --leases N), nil
// for none. The read-write lock's and the semaphore's soaks start from it.
func Contenders(name, path string, flags func(c *chaos.Config, slot string) []string) chaos.Recipe {
	return chaos.Recipe{
		Name:    name,
		Command: "zklock",
		Noun:    "zklock contenders",
		Words:   words,
		// zklock is the sequential recipe; Fence is its CMD's, which fences
		// with ZKLOCK_EPOCH (at-most-one only, as for speakers).
		Settle:   func(c *chaos.Config) { c.Election = "sequential" },
		Path:     func(*chaos.Config) string { return path },
		Slots:    func(c *chaos.Config) []string { return chaos.Numbered("s", c.Speakers) },
		Argv:     argv(path, flags),
		Started:  func(string) string { return `msg="waiting for the lock"` },
		Respawns: func(string) bool { return true }, // a contender ends when its CMD does, and goes again
		// zklock exits with its CMD's status: also 130 (interrupted while
		// waiting for the lock) and 137 (its watchdog killed a CMD that had
		// not ended by the moment the session might expire: on a loaded
		// machine, a CMD between a line and its fsync may not be let finish)
		// and 143 (a CMD just started, signalled before it handles SIGTERM,
		// ends by it).
		GoodStatus: func(_ string, status int) bool { return status == 130 || status == 137 || status == 143 },
		Describe: func(c chaos.Config) string {
			return fmt.Sprintf("chaos: %s, seed %d, %v, %d %s, %s, %s", c.Recipe, c.Seed, c.Duration, c.Speakers, c.Noun(), c.Policy, c.ServersWord())
		},
		Summary: func(_ chaos.Input, r chaos.Report) string {
			return fmt.Sprintf("lines of CMD %d, critical sections %d, contenders that held the lock %d (%s)", r.Lines, r.Terms, len(r.Writers), strings.Join(r.Writers, ", "))
		},
	}
}

// argv gives a contender's command line: zklock on path with flags, and
// the CMD it runs while it holds the lock for a time drawn from S/2 to
// 3.5 S (or Config.Hold).
func argv(path string, flags func(c *chaos.Config, slot string) []string) func(*chaos.Config, string, string, *rand.Rand, int) []string {
	return func(c *chaos.Config, name, servers string, rng *rand.Rand, _ int) []string {
		hold := c.Session/2 + time.Duration(rng.Int64N(int64(c.Session*3)))
		if c.Hold > 0 {
			hold = c.Hold
		}
		out := []string{"--servers", servers, "--path", path, "--name", name,
			"--session-timeout", c.Session.String(), "--policy", c.Policy, "--grace", (c.Session / 2).String(),
			"--log-level", "info"}
		if flags != nil {
			out = append(out, flags(c, name)...)
		}
		return append(out, "--",
			c.Speaker, "chaos-work", "--name", name, "--out", c.Out(), "--interval", c.Interval.String(), "--for", hold.Round(time.Millisecond).String(),
			fmt.Sprintf("--fence=%v", c.Fence))
	}
}

// words are the lock's: a holder, its critical sections.
var words = chaos.Words{
	Lead:    "holder",
	Counts:  chaos.OnTheSubject,
	Columns: []string{"on the holder", "min", "median", "max", "no line after"},
	Key: []string{"(n: faults injected; on the holder: those that hit the holder (the contender whose CMD wrote last),",
		" with min/median/max of the time from the fault to the next line of CMD by any holder;",
		" no line after: those that hit the holder with no line of CMD after them before the end)"},
	DeleteKind: "delete-holder",
	Silence:    "no line of CMD from", Bound: "session + tick + interval + slack after the silence began or the last fault healed",
	Green: "a lock holder's CMD writing", Wrote: "its CMD wrote, holding the lock,",
	Checker: "overlapping critical sections (red: unexplained), epoch drops and stalls", Overlaps: "overlapping critical sections",
}

// Work is the critical section of a lock soak, the CMD each zklock
// contender runs while it holds the lock: it appends a line to out every
// interval, at once first, for hold, each in the speaker's format with the
// lock's epoch, whole and fsynced. Its first and last lines bound the
// section; a second holder's line between them is two holders at once,
// which the checker reads as an overlap, as for two speakers. With fence,
// it fences itself with the epoch, as the lock's docs tell a holder to:
// a line below the file's last epoch is refused, and the section ends.
// That alone closes the window that no lock can: an operator deletes the
// holder's znode while its zklock is frozen or cut off, and the next
// holder starts before the old one has heard. It returns nil when hold is
// over, when it was fenced off, or when ctx is done (zklock's SIGTERM).
func Work(ctx context.Context, name, out string, interval, hold time.Duration, epoch int64, fence bool) error {
	f, err := speaker.OpenAppender(out)
	if err != nil {
		return err
	}
	defer f.Close()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	end := time.After(hold)
	for counter := uint64(1); ; counter++ {
		err := f.Append(speaker.Line{Time: time.Now(), Name: name, Counter: counter, Epoch: epoch}, fence)
		if errors.Is(err, speaker.ErrFenced) {
			fmt.Fprintf(os.Stderr, "chaos-work: fenced off, a newer holder wrote: %v\n", err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("chaos-work: %w", err)
		}
		select {
		case <-tick.C:
		case <-end:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
