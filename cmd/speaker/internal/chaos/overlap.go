package chaos

import (
	"time"

	"zkspeaker/speaker"
)

// Window is a documented way for two writers to speak at once: a price a
// setting pays knowingly, so an overlap inside one is no failure.
type Window string

const (
	// PausedPastConfirm is a speaker frozen (SIGSTOP) past its session or
	// its confirm: when it continues, its first write lands beside the new
	// leader's lines. Under at-least-one nothing confirms a line, so any
	// long freeze opens it (docs/policies.md); under at-most-one only
	// a freeze between the confirm and the write does, and only the fence
	// closes it.
	PausedPastConfirm Window = "frozen past its session or confirm (SIGSTOP; at-least-one, or no --fence)"
	// Partitioned is an at-least-one speaker cut off from ZooKeeper, or
	// with ZooKeeper down, that speaks on until it learns its session
	// expired, while another is elected: the policy prefers two leaders
	// for a moment to none.
	Partitioned Window = "speaking while partitioned (at-least-one)"
)

// Overlap is a span in which two writers spoke at once, with the window
// that explains it, if any.
type Overlap struct {
	speaker.Overlap
	// Window is the documented window that explains it, "" when none does.
	Window Window
	// Faults are the faults that opened the window, in log order; empty
	// when the overlap is unexplained.
	Faults []Fault
}

// Explained reports whether a documented window explains the overlap: an
// unexplained one is two leaders where the election promised one.
func (o Overlap) Explained() bool { return o.Window != "" }

// Classify gives every overlap the window that explains it under in's
// policy and fence, as the checker does an election's: for a recipe's own
// checker that judges only some pairs of writers (two readers may hold at
// once) or counts holders (a semaphore's).
func Classify(in Input, found []speaker.Overlap) []Overlap { return classifyOverlaps(in, found) }

// classifyOverlaps gives every overlap the window that explains it under
// in's policy and fence.
func classifyOverlaps(in Input, found []speaker.Overlap) []Overlap {
	out := make([]Overlap, 0, len(found))
	for _, o := range found {
		c := Overlap{Overlap: o}
		if in.Policy == atLeastOne || !in.Fence && in.Policy == atMostOne {
			c.Faults = faultsWhere(in.Faults, func(f Fault) bool { return pausedInto(in, o, f) })
			c.Window = PausedPastConfirm
		}
		if len(c.Faults) == 0 && in.Policy == atLeastOne {
			c.Faults = faultsWhere(in.Faults, func(f Fault) bool { return partitionedInto(in, o, f) })
			c.Window = Partitioned
		}
		if len(c.Faults) == 0 {
			c.Window = ""
		}
		out = append(out, c)
	}
	return out
}

// pausedInto reports whether f froze one of o's writers and let it go
// shortly before or during o: a speaker that continues writes the line it
// was about to write, within two of its intervals and a confirm deadline
// (at most a second) of the SIGCONT.
func pausedInto(in Input, o speaker.Overlap, f Fault) bool {
	if f.Kind != StopShort && f.Kind != StopLong || !writes(o, f.Target) {
		return false
	}
	from := o.From.Add(-(2*in.Interval + time.Second + in.Slack))
	return !f.End.Before(from) && !f.End.After(o.To.Add(in.Slack))
}

// partitionedInto reports whether f cut one of o's writers off from
// ZooKeeper, or took ZooKeeper from every writer, at a time that reaches
// into o: a cut-off speaker learns of its expiry no later than a session
// (and the slack) after the network heals.
func partitionedInto(in Input, o speaker.Overlap, f Fault) bool {
	switch f.Kind {
	case Reset, Storm, HoleShort, HoleLong:
		if !writes(o, f.Target) {
			return false
		}
	case ServerKill, QuorumLoss:
	default:
		return false
	}
	until := f.End.Add(in.Session + in.Slack)
	return !f.Start.After(o.To) && !until.Before(o.From)
}

// writes reports whether name is one of o's two writers.
func writes(o speaker.Overlap, name string) bool { return name == o.A || name == o.B }

// faultsWhere returns the faults that match, in log order.
func faultsWhere(faults []Fault, match func(Fault) bool) []Fault {
	var out []Fault
	for _, f := range faults {
		if match(f) {
			out = append(out, f)
		}
	}
	return out
}
