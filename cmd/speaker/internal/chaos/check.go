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
	// Bound, when set, replaces the stall bound of session + tick +
	// interval + slack.
	Bound time.Duration
	// Recipe is the program the soak ran (Config.Recipe): its checker
	// judges, and the report speaks its words. Empty means the default
	// recipe's.
	Recipe string
	// Record is what the recipe's soak recorded for its own checker
	// besides the out file (Running.Record); nil for none.
	Record any
	// Cmd is the command line of the program under test when it is the
	// user's (Config.Cmd): the report names it.
	Cmd string
	// Blind says why the soak could not find the processes' znodes
	// (Layout.Unknown), "" when it could: the report says what it left
	// out.
	Blind string
}

// Report is the checker's verdict on a soak: what happened, and every
// place where the election did not hold, with enough said to find it.
type Report struct {
	// Recipe is the program the soak ran: the report is written in its
	// words, never another recipe's.
	Recipe string
	// Summary says what the soak's processes did, in the recipe's words,
	// when its checker says it; "" for the election's line.
	Summary string
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
	// Own are the findings of the recipe's own checker, in the summary's
	// order, when it has one: then overlaps are not looked for.
	Own []Section
	// Cmd and Blind are Input's: the program of the user's under test,
	// and why its znodes could not be found.
	Cmd, Blind string
}

// Section is one class of a recipe's own findings.
type Section struct {
	// What heads it in the summary, and names it among the failures.
	What string
	// Found are its findings.
	Found []Finding
	// Mark names one finding on the picture's checker lane; "" draws none.
	Mark string
	// Explained says its findings are no failure: they happen in a
	// documented window, as an explained overlap does.
	Explained bool
}

// Found returns the findings of the recipe's section headed what.
func (r Report) Found(what string) []Finding {
	for _, s := range r.Own {
		if s.What == what {
			return s.Found
		}
	}
	return nil
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

	rc := recipeNamed(in.Recipe)
	r := Report{
		Recipe:   rc.Name,
		Lines:    tl.Lines(),
		Writers:  tl.Writers,
		Terms:    len(tl.Terms),
		Kinds:    kindStats(in, lines),
		Fence:    in.Fence,
		Overlaps: classifyOverlaps(in, tl.Overlaps()),
		Stalls:   findStalls(in, times),
		Leaks:    in.Leftover,
		Cmd:      in.Cmd,
		Blind:    in.Blind,

		TornLines:    anomalies(tl, speaker.AnomalyTornLine),
		CounterJumps: anomalies(tl, speaker.AnomalyCounterJump),
	}
	if in.Fence {
		r.EpochDrops = epochDrops(lines)
	}
	if c := rc.Checker; c != nil {
		r.Overlaps, r.Own = nil, c.Check(in, lines)
	}
	if rc.Summary != nil {
		r.Summary = rc.Summary(in, r)
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
	for _, s := range r.Own {
		add(!s.Explained && len(s.Found) > 0, s.What)
	}
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
