package chaos

import (
	"fmt"
	"strings"
)

// words are a recipe's own names for what its soak reports. A group has
// no leader and a key no handover: a report in a speaker's words would
// make a student look for what is not there ("terms" that merely count the
// operator's lines), so each recipe says who its faults hit, what its lines
// are and what the fault table measures, in the words of its chapter.
type words struct {
	// lead is the process whose faults the table measures, as the
	// progress lines and the fault log mark it ("leader", "holder"); ""
	// when the recipe has none: members and updaters stand side by side.
	lead string
	// columns head the fault table after "fault" and "n"; key explains
	// them, a line each; counts are the counts under the columns before
	// the times.
	columns, key []string
	counts       func(Handover) []int
	// deleteKind is the recipe's name for DeleteLeader: what the
	// operator's delete of one znode takes away.
	deleteKind string
	// silence begins a stall's line ("silence", "no reading from"), and
	// bound says the stall's bound.
	silence, bound string
	// green says what a green bar on a lane shows; wrote names one in
	// its title.
	green, wrote string
	// checker says what the checker's lane shows.
	checker string
	// overlaps names two writers at once: a lock's are two critical
	// sections.
	overlaps string
}

// speakerWords are the election's: a leader, its handovers and terms.
var speakerWords = words{
	lead:    "leader",
	columns: []string{"handovers", "min", "median", "max", "no line after"},
	counts:  func(h Handover) []int { return []int{h.N} },
	key: []string{"(n: faults injected; handovers: those that hit the leader and were followed by a line,",
		" with min/median/max of the time from the fault to the next line by anyone;",
		" no line after: those that hit the leader with no line after them before the end)"},
	deleteKind: "delete-leader",
	silence:    "silence", bound: "session + tick + interval + slack after the silence began or the last fault healed",
	green: "a speaker writing", wrote: "wrote",
	checker: "overlaps (red: unexplained) and stalls", overlaps: "overlaps",
}

// recipeWords are the other programs', by Config.Recipe.
var recipeWords = map[string]words{
	RecipeLock: {
		lead:    "holder",
		counts:  onTheSubject,
		columns: []string{"on the holder", "min", "median", "max", "no line after"},
		key: []string{"(n: faults injected; on the holder: those that hit the holder (the contender whose CMD wrote last),",
			" with min/median/max of the time from the fault to the next line of CMD by any holder;",
			" no line after: those that hit the holder with no line of CMD after them before the end)"},
		deleteKind: "delete-holder",
		silence:    "no line of CMD from", bound: "session + tick + interval + slack after the silence began or the last fault healed",
		green: "a lock holder's CMD writing", wrote: "its CMD wrote, holding the lock,",
		checker: "overlapping critical sections (red: unexplained), epoch drops and stalls", overlaps: "overlapping critical sections",
	},
	RecipeGroup: {
		counts:  func(h Handover) []int { return []int{h.On, h.LeftOut} },
		columns: []string{"on a member", "left out", "min", "median", "max", "not back"},
		key: []string{"(n: faults injected; on a member: those on a member's process, network or znode;",
			" left out: those after which the member was left out of the listing by a reading before its next fault",
			" (of faults close together, the last one is counted), with min/median/max",
			" of the time from the fault to the first reading that listed it again;",
			" not back: left out, and not listed again before the end)"},
		deleteKind: "delete-member",
		silence:    "no reading from", bound: "2 × session + tick + interval + slack after the last fault healed: the operator's own client reconnects first",
		green: "the member in ZooKeeper's listing; on the watcher's lane, its last report agrees with the listing", wrote: "listed",
		checker: "wrong listings, wrong watcher reports and stalls",
	},
	RecipeConfig: {
		counts:  onTheSubject,
		columns: []string{"on a key", "min", "median", "max", "no value after"},
		key: []string{"(n: faults injected; on a key: those on a key's updater or watcher, or on its znode,",
			" with min/median/max of the time from the fault to the next value printed by its key's watcher;",
			" no value after: those with no value from its key's watcher after them before the end)"},
		deleteKind: "delete-key",
		silence:    "no value from", bound: "session + tick + interval + slack after the silence began or the last fault healed",
		green: "a watcher printing a value", wrote: "printed a value",
		checker: "values that went back, lost writes, stale watchers and stalls",
	},
	RecipeSeqid: {
		lead:    "leader",
		counts:  onTheSubject,
		columns: []string{"on the leader", "min", "median", "max", "no ID after"},
		key: []string{"(n: faults injected; on the leader: those that hit the leader of the persisters (p1, p2),",
			" with min/median/max of the time from the fault to the next ID handed out to any worker;",
			" no ID after: those that hit the leader with no ID handed out after them before the end)"},
		deleteKind: "delete-leader",
		silence:    "no ID handed out from", bound: "3 × session + tick + interval + slack after the last fault healed: a persister may first give up a refused client",
		green: "a worker handed IDs", wrote: "was handed IDs",
		checker: "duplicate IDs, IDs below a restore and stalls",
	},
}

// wordsOf returns the words of the recipe; the speaker's by default.
func wordsOf(recipe string) words {
	if w, ok := recipeWords[recipe]; ok {
		return w
	}
	return speakerWords
}

// kindName is the kind as this recipe calls it.
func (w words) kindName(k Kind) string {
	if k == DeleteLeader {
		return w.deleteKind
	}
	return k.String()
}

// row is a kind's row of the fault table, after its name and n.
func (w words) row(h Handover) []string {
	var out []string
	for _, n := range w.counts(h) {
		out = append(out, fmt.Sprint(n))
	}
	return append(out, ms(h.N, h.Min), ms(h.N, h.Median), ms(h.N, h.Max), fmt.Sprint(h.NoLine))
}

// onTheSubject counts the faults on what the table measures: the holder,
// a key, the persisters' leader.
func onTheSubject(h Handover) []int { return []int{h.On} }

// marked is who a fault hit, as the progress lines and the summary say
// it: "s2 (the leader)".
func (w words) marked(f Fault) string {
	if f.Leader && w.lead != "" {
		return f.Target + " (the " + w.lead + ")"
	}
	return f.Target
}

// aliases are the recipes' names for DeleteLeader, which ParseKind reads.
func aliases() map[string]Kind {
	out := map[string]Kind{}
	for _, w := range recipeWords {
		out[w.deleteKind] = DeleteLeader
	}
	return out
}

// summaryLine says what the soak's processes did, in the recipe's words.
func (r Report) summaryLine() string {
	names := strings.Join(r.Writers, ", ")
	switch r.Recipe {
	case RecipeLock:
		return fmt.Sprintf("lines of CMD %d, critical sections %d, contenders that held the lock %d (%s)", r.Lines, r.Terms, len(r.Writers), names)
	case RecipeGroup:
		return fmt.Sprintf("readings %d, members %d (%s), watcher reports %d", r.Tally.Readings, len(r.Tally.Members), strings.Join(r.Tally.Members, ", "), r.Tally.Reports)
	case RecipeConfig:
		return fmt.Sprintf("values seen by the watchers %d (%s), writes tried %d, acknowledged %d", r.Lines, names, r.Tally.Tried, r.Tally.Acked)
	case RecipeSeqid:
		return fmt.Sprintf("IDs handed out %d, by workers %d (%s)", r.Lines, len(r.Writers), names)
	}
	return fmt.Sprintf("lines %d, writers %d (%s), terms %d", r.Lines, len(r.Writers), names, r.Terms)
}

// Tally counts what a recipe's processes did where the out file's lines
// do not: the operator's readings of a group and the watcher's reports,
// a configuration's writes.
type Tally struct {
	// Readings is the operator's readings of the group, Reports the
	// watcher's lines, Members the group's members by name.
	Readings, Reports int
	Members           []string
	// Tried counts the updaters' sets, and Acked those that exited 0.
	Tried, Acked int
}

// tally counts the group's or the configuration's processes' work.
func tally(in Input) Tally {
	var t Tally
	if g := in.Group; g != nil {
		t.Readings, t.Reports, t.Members = len(g.Samples), len(g.Reports), memberNames(g.Lives)
	}
	if c := in.Config; c != nil {
		for key, n := range c.Tried {
			t.Tried += n
			t.Acked += n - len(c.Unsure[key])
		}
	}
	return t
}

// recipeOf is the recipe the input is of: Input.Recipe, or the one its
// Group, Config or IDs tells, or the speaker.
func recipeOf(in Input) string {
	switch {
	case in.Recipe != "":
		return in.Recipe
	case in.Group != nil:
		return RecipeGroup
	case in.Config != nil:
		return RecipeConfig
	case in.IDs:
		return RecipeSeqid
	}
	return RecipeSpeaker
}
