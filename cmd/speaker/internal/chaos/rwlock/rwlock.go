// Package rwlock is the chaos soak of zklock's shared lock: readers
// (zklock --shared) and writers (plain zklock) contend for one path, each
// in a loop as the lock's contenders are (package lock): wait, hold while
// CMD (`speaker chaos-work`) writes a line every interval, release, again.
// The readers are named r1, r2, ..., the writers w1, w2, ..., so that the
// out file's lines say who held how. A writer's CMD may overlap no other
// CMD; two readers' may.
package rwlock

import (
	"fmt"
	"strings"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/speaker"
)

// Name is the recipe's name, the value of --recipe.
const Name = "rwlock"

// path is the lock's znode in a read-write lock soak.
const path = "/chaos-rwlock"

// Overlaps heads the checker's finding: a writer's CMD beside another.
const Overlaps = "a writer beside another CMD"

// Recipe is the read-write lock's soak, as the core runs and checks it.
var Recipe = recipe()

func recipe() chaos.Recipe {
	r := lock.Contenders(Name, path, func(_ *chaos.Config, slot string) []string {
		if reader(slot) {
			return []string{"--shared"}
		}
		return nil
	})
	r.Slots = slots
	// Readers hold together, each with its own epoch: one epoch cannot
	// fence them (lock.DeletedWhileAway), so the soak runs without.
	r.Settle = func(c *chaos.Config) { c.Election, c.Fence = "sequential", false }
	// The line holds readers (read-) and writers (n_): the operator's
	// delete takes the first of either, and a leftover of either is a leak.
	r.Layout = func(*chaos.Config) chaos.Layout { return chaos.Layout{AnyNames: true} }
	r.Summary = summary
	r.Checker = &chaos.Checker{
		Check: check,
		NotLooked: "two readers' CMDs may overlap: readers share the lock " +
			"(r1, r2, ... run zklock --shared; w1, w2, ... take the write lock)",
	}
	return r
}

// slots names the soak's processes: half of them readers, rounded up,
// then the writers.
func slots(c *chaos.Config) []string {
	writers := c.Speakers / 2
	return append(chaos.Numbered("r", c.Speakers-writers), chaos.Numbered("w", writers)...)
}

// reader reports whether the process called name takes the read lock.
func reader(name string) bool { return strings.HasPrefix(name, "r") }

// check finds every overlap of a writer's CMD with another CMD, each with
// the window that explains it, if any; overlaps of two readers are none.
func check(in chaos.Input, lines []chaos.Line) []chaos.Section {
	var kept []speaker.Overlap
	for _, o := range lock.Beside(lock.CriticalSections(lines)) {
		if !reader(o.A) || !reader(o.B) {
			kept = append(kept, o)
		}
	}
	return lock.Findings(Overlaps, lock.Judge(in, kept))
}

// summary says what the contenders did: their critical sections, and how
// often two readers held together: a soak in which they never did tested
// no sharing.
func summary(in chaos.Input, r chaos.Report) string {
	lines, err := chaos.ReadLines(in.Out)
	if err != nil {
		return "" // the core's Check has failed on it already
	}
	held := lock.CriticalSections(lines)
	readers, together := 0, 0
	for _, h := range held {
		if reader(h.Name) {
			readers++
		}
	}
	for _, o := range lock.Beside(held) {
		if reader(o.A) && reader(o.B) {
			together++
		}
	}
	return fmt.Sprintf("lines of CMD %d, critical sections of readers %d and of writers %d, readers together %d times, contenders that held the lock %d (%s)",
		r.Lines, readers, len(held)-readers, together, len(r.Writers), strings.Join(r.Writers, ", "))
}
