package chaos

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"zkspeaker/speaker"
)

// The two --policy values, as Input.Policy holds them: they decide which
// overlaps a soak may show.
const (
	atMostOne  = "at-most-one"
	atLeastOne = "at-least-one"
)

// Input is what a soak left behind: the checker judges by nothing else, so
// a soak can be judged again later from its files.
type Input struct {
	// Out is the out file all speakers appended to.
	Out []byte
	// Faults is the fault log, in order of Start.
	Faults []Fault
	// Exits is the outcome of every SIGTERM sent: Term faults and the
	// final stop.
	Exits []Exit
	// Leftover lists the candidate znodes still in ZooKeeper after every
	// speaker exited: each one is a leak.
	Leftover []string
	// Session is the session timeout the servers granted, Tick the
	// servers' tick and Interval the speakers' line interval: every bound
	// the checker holds the election to is made of them.
	Session, Tick, Interval time.Duration
	// Slack is extra time allowed on top of every bound, the runner's
	// measurement slop; it may be 0.
	Slack time.Duration
	// Fence says whether the speakers ran with --fence, which refuses a
	// stale leader's writes: then an epoch never goes down in the file,
	// and a paused leader explains no overlap.
	Fence bool
	// Policy is the speakers' --policy, "at-most-one" or "at-least-one":
	// it decides which overlaps are allowed.
	Policy string
	// Start is when the faults began; End is when every speaker got its
	// final SIGTERM. Handovers and stalls are measured between them.
	Start, End time.Time
	// GoodStatus says which exits after SIGTERM are graceful, by process
	// and status; nil means status 0 only.
	GoodStatus func(name string, status int) bool
	// IDs says the lines are a sequence-ID soak's (RecipeSeqid): many
	// workers take IDs at once, so their lines overlap by design, and what
	// is checked instead is that no ID comes twice and that IDs after a
	// restore are above those before.
	IDs bool
	// Bound, when set, replaces the stall bound of session + tick +
	// interval + slack.
	Bound time.Duration
	// Group, for a group soak (RecipeGroup), holds its readings and the
	// processes' lives: the lines are the operator's readings, and what
	// is checked is membership (checkGroup), not overlaps.
	Group *GroupInput
	// Config, for a config soak (RecipeConfig), holds the watchers' values
	// and the writes: what is checked is checkConfig, not overlaps.
	Config *ConfigInput
	// Recipe is the program the soak ran (Config.Recipe): the report
	// speaks its words. Empty means the speaker's, or the recipe that
	// Group, Config or IDs tells.
	Recipe string
}

// Report is the checker's verdict on a soak: what happened, and every
// place where the election did not hold, with enough said to find it.
type Report struct {
	// Recipe is the program the soak ran: the report is written in its
	// words (a lock's holders, a group's members), never a speaker's.
	Recipe string
	// Tally counts what a group's or a configuration's processes did,
	// which the out file's lines do not tell.
	Tally Tally
	// Lines is the number of well-formed lines in the out file.
	Lines int
	// Writers are the speakers that wrote, in order of first appearance.
	Writers []string
	// Terms is the number of runs of consecutive lines by one writer: the
	// leaderships the file shows.
	Terms int
	// Kinds has one entry per fault kind, in Kinds() order, zeros
	// included, so every soak's table has the same rows.
	Kinds []KindStats
	// TornLines are lines that do not parse: cut by a crash or glued.
	TornLines []Finding
	// CounterJumps are lines whose writer's counter did not go up by one.
	CounterJumps []Finding
	// Fence says whether epoch drops were looked for: without --fence a
	// stale leader may write an old epoch, and that is no fault.
	Fence bool
	// EpochDrops are lines whose epoch is lower than one written before
	// them in the file, which the fence exists to prevent.
	EpochDrops []Finding
	// Overlaps are every span in which two writers spoke at once, each
	// with the window that explains it, if any.
	Overlaps []Overlap
	// Stalls are silences longer than the election's bound.
	Stalls []Stall
	// Leaks are candidate znodes left behind after every speaker exited.
	Leaks []string
	// BadExits are SIGTERMs answered with a nonzero status or too late.
	BadExits []Exit
	// IDs says the soak was of the sequence-ID service: overlaps are not
	// looked for, and the two findings below are.
	IDs bool
	// Duplicates are IDs handed out a second time.
	Duplicates []Finding
	// BelowRestore are IDs handed out after a restore that are not above
	// every ID handed out before the loss.
	BelowRestore []Finding
	// Group says the soak was of group membership: overlaps are not
	// looked for, and the two findings below are.
	Group bool
	// Listing are readings of the group that left out a member whose
	// process had run with no fault of its own nor of a server for the
	// bound, or listed a member long gone: each member judged on its own.
	Listing []Finding
	// Watcher are the watcher's reports that disagreed with the listing
	// about a member whose place had settled, or reported a member joining
	// that had long gone.
	Watcher []Finding
	// Config says the soak was of the configuration service: overlaps are
	// not looked for, and the three findings below are.
	Config bool
	// WentBack are values a watcher saw that were older than one it had
	// seen before.
	WentBack []Finding
	// Lost are keys whose final value is below an acknowledged write.
	Lost []Finding
	// Late are the same, and values a watcher saw go back, where the older
	// value is a write whose outcome its set never learned, which landed
	// late: explained, as an overlap in a documented window is.
	Late []Finding
	// Stale are watchers whose last value is not the key's final one.
	Stale []Finding
}

// Check reads the out file and the fault log and says whether the election
// held. It fails only when Out cannot be read at all (a line longer than
// the timeline reader takes); a torn line is a finding, not an error.
func Check(in Input) (Report, error) {
	tl, err := speaker.ReadTimeline(bytes.NewReader(in.Out))
	if err != nil {
		return Report{}, fmt.Errorf("chaos: read out file: %w", err)
	}
	lines, err := readLines(in.Out)
	if err != nil {
		return Report{}, fmt.Errorf("chaos: read out file: %w", err)
	}
	times := make([]time.Time, len(lines))
	for i, l := range lines {
		times[i] = l.Time
	}
	slices.SortFunc(times, time.Time.Compare)

	r := Report{
		Recipe:   recipeOf(in),
		Tally:    tally(in),
		Lines:    tl.Lines(),
		Writers:  tl.Writers,
		Terms:    len(tl.Terms),
		Kinds:    kindStats(in, lines),
		Fence:    in.Fence,
		Overlaps: classifyOverlaps(in, tl.Overlaps()),
		Stalls:   findStalls(in, times),
		Leaks:    in.Leftover,

		TornLines:    anomalies(tl, speaker.AnomalyTornLine),
		CounterJumps: anomalies(tl, speaker.AnomalyCounterJump),
	}
	if in.Fence {
		r.EpochDrops = epochDrops(lines)
	}
	if in.Group != nil {
		r.Group, r.Overlaps = true, nil
		r.Listing, r.Watcher = checkGroup(in)
	}
	if in.Config != nil {
		r.Config, r.Overlaps = true, nil
		r.WentBack, r.Lost, r.Late, r.Stale = checkConfig(in.Config)
	}
	if in.IDs {
		r.IDs, r.Overlaps = true, nil
		r.Duplicates, r.BelowRestore = duplicateIDs(lines), idsBelowRestore(lines, in.Faults)
	}
	for _, e := range in.Exits {
		if e.bad(in.GoodStatus) {
			r.BadExits = append(r.BadExits, e)
		}
	}
	return r, nil
}

// Failures names, in the summary's order, each class of problem the report
// found; it is empty when the soak passed.
func (r Report) Failures() []string {
	var out []string
	add := func(found bool, what string) {
		if found {
			out = append(out, what)
		}
	}
	add(len(r.TornLines) > 0, "torn lines")
	add(len(r.CounterJumps) > 0, "counter jumps")
	add(len(r.EpochDrops) > 0, "epoch drops")
	add(len(r.Duplicates) > 0, "duplicate IDs")
	add(len(r.BelowRestore) > 0, "IDs below a restore")
	add(len(r.Listing) > 0, "wrong listings")
	add(len(r.Watcher) > 0, "wrong watcher reports")
	add(len(r.WentBack) > 0, "values that went back")
	add(len(r.Lost) > 0, "lost writes")
	add(len(r.Stale) > 0, "stale watchers")
	add(r.unexplained() > 0, "unexplained overlaps")
	add(len(r.Stalls) > 0, "stalls")
	add(len(r.Leaks) > 0, "leaks")
	add(len(r.BadExits) > 0, "bad exits")
	return out
}

// Pass reports whether the election held: no bad line, no overlap outside
// the documented windows, no silence past the bound, nothing left behind
// and every exit graceful.
func (r Report) Pass() bool { return len(r.Failures()) == 0 }

// unexplained counts the overlaps no documented window explains.
func (r Report) unexplained() int {
	n := 0
	for _, o := range r.Overlaps {
		if !o.Explained() {
			n++
		}
	}
	return n
}
