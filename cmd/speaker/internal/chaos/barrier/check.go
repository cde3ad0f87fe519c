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
// with a slot missing that no fault explains.
func togetherIn(in chaos.Input, secs []section, slots []string) chaos.Section {
	bad := chaos.Section{What: NotTogetherIn, Mark: "not together in"}
	for _, round := range rounds(secs) {
		first, last := round[0].First, round[0].First
		var there []string
		for _, s := range round {
			first, last = earlier(first, s.First), later(last, s.First)
			there = append(there, s.Name)
		}
		var missing []string
		for _, slot := range slots {
			if !slices.Contains(there, slot) && !keptOut(in, slot, first, last) {
				missing = append(missing, slot)
			}
		}
		if len(missing) > 0 {
			bad.Found = append(bad.Found, chaos.Finding{Time: first, Detail: fmt.Sprintf("round %d: CMDs of %s from %s, none of %s, and no fault kept it out",
				round[0].round, strings.Join(there, ", "), lock.At(first), strings.Join(missing, ", "))})
		}
	}
	return bad
}

// keptOut reports whether a fault, or the soak's end, could have kept
// slot's member from the CMD of a round it was counted in, whose CMDs
// started from first to last: the fault began before its CMD's first line
// would have come, and while the member could still be counted. A killed,
// frozen or cut-off member's znode lasts a session and a tick after the
// fault began; a member signalled (term) takes its znode out as it goes,
// and the operator's delete of a member znode takes it at once, so these
// two count only from just before the round.
func keptOut(in chaos.Input, slot string, first, last time.Time) bool {
	if in.End.Sub(first) <= in.Slack {
		return true // the final SIGTERM came as the round opened
	}
	until := last.Add(in.Slack)
	for _, f := range in.Faults {
		from := first.Add(-(in.Session + in.Tick + in.Interval + in.Slack))
		switch {
		case f.Kind == chaos.DeleteLeader:
			from = first.Add(-in.Slack)
		case f.Target != slot:
			continue
		case f.Kind == chaos.Term:
			from = first.Add(-in.Slack)
		}
		if !f.Start.Before(from) && !f.Start.After(until) {
			return true
		}
	}
	return false
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
