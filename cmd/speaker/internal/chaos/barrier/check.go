package barrier

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
)

// The checker's two rules, from the out file (each CMD's lines carry its
// round, ZKBARRIER_ROUND, as their epoch) and from the members' logs
// (when each saw its round empty):
//
//   - Together in: every member process stands in the barrier at most once
//     at a time, and the soak runs exactly --count of them, so a round
//     opened only once every slot was in. Each round's CMDs must come from
//     every slot, but for a slot whose member a fault could have kept from
//     its CMD after it was counted (killed, stopped, cut off, signalled;
//     a member killed earlier still counts until its session expires).
//   - Together out: a member that saw its round empty did so after the
//     last line of every CMD of that round, but for a CMD whose member was
//     no longer alive to ZooKeeper: a fault that can end its session, or
//     the operator's delete of a member znode, began before, and the CMD
//     stopped within a session (and an interval and the slack) after it
//     healed, when its member hears that its znode is gone.

// Section headings of the findings.
const (
	NotTogetherIn  = "CMDs started without every member in"
	NotTogetherOut = "members out before a CMD of their round ended"
	NoRound        = "CMD lines without a round"
	LeftBehind     = "member znodes left behind"
)

// section is one CMD of the soak: its slot, round and first and last line.
type section struct {
	lock.Held
	round int64
}

// sections are the CMDs in lines, in the order of their first lines.
func sections(lines []chaos.Line) []section {
	var out []section
	open := map[string]int{}
	for _, l := range lines {
		i, ok := open[l.Name]
		if !ok || l.Counter == 1 {
			open[l.Name] = len(out)
			out = append(out, section{Held: lock.Held{Name: l.Name, First: l.Time, Last: l.Time}, round: l.Epoch})
			continue
		}
		out[i].Last = later(out[i].Last, l.Time)
	}
	return out
}

// check is the recipe's checker.
func check(in chaos.Input, lines []chaos.Line) []chaos.Section {
	secs := sections(lines)
	rec := record(in)
	noRound := chaos.Section{What: NoRound, Mark: "no round"}
	for _, s := range secs {
		if s.round == 0 {
			noRound.Found = append(noRound.Found, chaos.Finding{Time: s.First, Detail: fmt.Sprintf("%s's CMD from %s had no ZKBARRIER_ROUND", s.Name, lock.At(s.First))})
		}
	}
	left := chaos.Section{What: LeftBehind}
	for _, z := range rec.Left {
		left.Found = append(left.Found, chaos.Finding{Detail: z + " is still in ZooKeeper after every member exited"})
	}
	out := append([]chaos.Section{togetherIn(in, secs, rec.Slots)}, togetherOut(in, secs, rec.Leaves)...)
	return append(out, noRound, left)
}

// togetherIn finds the rounds whose CMDs came from fewer than every slot,
// with more slots missing than faults explain.
func togetherIn(in chaos.Input, secs []section, slots []string) chaos.Section {
	bad := chaos.Section{What: NotTogetherIn, Mark: "not together in"}
	for _, round := range rounds(secs) {
		first, last := round[0].First, round[0].First
		var there []string
		for _, s := range round {
			first, last = earlier(first, s.First), later(last, s.First)
			there = append(there, s.Name)
		}
		if in.End.Sub(first) <= in.Slack {
			continue // the final SIGTERM came as the round opened
		}
		used := map[int]bool{}
		var missing []string
		for _, slot := range slots {
			if slices.Contains(there, slot) {
				continue
			}
			if i := keptOut(in, slot, first, last); i >= 0 {
				used[i] = true
				continue
			}
			missing = append(missing, slot)
		}
		if len(missing) > zombies(in, first, used) {
			bad.Found = append(bad.Found, chaos.Finding{Time: first, Detail: fmt.Sprintf("round %d: CMDs of %s from %s, none of %s, and no fault kept it out",
				round[0].round, strings.Join(there, ", "), lock.At(first), strings.Join(missing, ", "))})
		}
	}
	return bad
}

// keptOut returns the fault that could have kept slot's member from the
// CMD of a round it was counted in, whose CMDs started from first to
// last, or -1: a fault on it that began before its CMD's first line would
// have come, while its znode could still be counted. A frozen or cut-off
// member's znode lasts until its session ends (counted); a member
// signalled (term) takes its znode out as it goes, and the operator's
// delete of a member znode takes it at once, so these two count only from
// just before the round.
func keptOut(in chaos.Input, slot string, first, last time.Time) int {
	for i, f := range in.Faults {
		if f.Start.After(last.Add(in.Slack)) {
			continue
		}
		switch {
		case f.Kind == chaos.DeleteLeader, f.Target == slot && f.Kind == chaos.Term:
			if !f.Start.Before(first.Add(-in.Slack)) {
				return i
			}
		case f.Target == slot && !counted(in, f).Before(first):
			return i
		}
	}
	return -1
}

// zombies counts the members killed (kill, or a lost create's restart)
// before first whose znodes could still be counted then, other than the
// faults used: each such znode takes the place of a live member in the
// count, and leaves one slot out of the round.
func zombies(in chaos.Input, first time.Time, used map[int]bool) int {
	n := 0
	for i, f := range in.Faults {
		if used[i] || f.Kind != chaos.Kill && f.Kind != chaos.LostCreate || f.Start.After(first) {
			continue
		}
		if !counted(in, f).Before(first) {
			n++
		}
	}
	return n
}

// counted is until when the znode of a member hit by f may still be
// counted: its session ends a session and a tick after the server last
// heard from it, and a server's outage (which a new leader follows with
// a fresh timeout for every session) puts that off.
func counted(in chaos.Input, f chaos.Fault) time.Time {
	bound := in.Session + in.Tick + in.Interval + in.Slack
	until := later(f.Start, f.End).Add(bound)
	for _, s := range in.Faults {
		if s.Kind != chaos.ServerKill && s.Kind != chaos.QuorumLoss || s.Start.After(until) || s.End.Before(f.Start) {
			continue
		}
		until = later(until, s.End.Add(bound))
	}
	return until
}

// rounds groups the sections by round, in order of round.
func rounds(secs []section) [][]section {
	by := map[int64][]section{}
	var keys []int64
	for _, s := range secs {
		if s.round == 0 {
			continue
		}
		if _, ok := by[s.round]; !ok {
			keys = append(keys, s.round)
		}
		by[s.round] = append(by[s.round], s)
	}
	slices.Sort(keys)
	out := make([][]section, 0, len(keys))
	for _, k := range keys {
		out = append(out, by[k])
	}
	return out
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
