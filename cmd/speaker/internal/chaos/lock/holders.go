package lock

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

// Locks whose holders hold together (readers, leases) cannot be fenced
// with one epoch: each holder has its own, and a reader's line below
// another reader's is no stale write. Their soaks run without the fence,
// and then the window that the lock's README says only a fence closes is
// open: the operator deletes a holder's znode, the next one holds at
// once, and the old CMD writes on until its zklock hears of it: a line at
// most, or, when its zklock was frozen or cut off, until zklock hears or
// learns it is cut off (and freezes CMD), or the watchdog stops CMD: no
// later than a session after zklock was last heard.

// DeletedWhileAway is that window, for a soak without the fence under
// at-most-one.
const DeletedWhileAway chaos.Window = "the operator deleted a holder's znode: its CMD writes on until its zklock hears, an interval later, or a session after the fault that froze or cut it off (no fence)"

// Judge gives every overlap of two zklock holders the window that explains
// it: the core's (Classify), or DeletedWhileAway.
func Judge(in chaos.Input, found []speaker.Overlap) []chaos.Overlap {
	out := chaos.Classify(in, found)
	if in.Fence || in.Policy != "at-most-one" {
		return out
	}
	for i, o := range out {
		if o.Explained() {
			continue
		}
		if fs := deletedWhileAway(in, o.Overlap); len(fs) > 0 {
			out[i].Window, out[i].Faults = DeletedWhileAway, fs
		}
	}
	return out
}

// away are the faults that keep a zklock from hearing that its znode is
// gone: frozen, or its connection cut.
var away = []chaos.Kind{chaos.StopShort, chaos.StopLong, chaos.Reset, chaos.Storm, chaos.HoleShort, chaos.HoleLong}

// deletedWhileAway returns an operator's delete before o began and, if
// one of o's writers was away then, the fault that kept it: o must end
// within an interval and the slack of the delete, or a session, an
// interval and the slack after that fault began.
func deletedWhileAway(in chaos.Input, o speaker.Overlap) []chaos.Fault {
	for _, del := range in.Faults {
		if del.Kind != chaos.DeleteLeader && del.Kind != chaos.DeletePath || o.From.Before(del.Start.Add(-in.Slack)) {
			continue
		}
		if !o.To.After(del.Start.Add(in.Interval + in.Slack)) {
			return []chaos.Fault{del}
		}
		for _, f := range in.Faults {
			if !slices.Contains(away, f.Kind) || f.Target != o.A && f.Target != o.B {
				continue
			}
			if !del.Start.Before(f.Start) && !del.Start.After(f.End.Add(in.Slack)) && !o.To.After(f.Start.Add(in.Session+in.Interval+in.Slack)) {
				return []chaos.Fault{f, del}
			}
		}
	}
	return nil
}

// Findings are a checker's findings of judged overlaps: what, the
// unexplained ones (a failure), and the explained ones beside them.
func Findings(what string, judged []chaos.Overlap) []chaos.Section {
	bad := chaos.Section{What: what, Mark: "overlap"}
	good := chaos.Section{What: "explained " + what, Explained: true}
	for _, o := range judged {
		f := chaos.Finding{Time: o.From, Detail: fmt.Sprintf("%s and %s both wrote from %s to %s", o.A, o.B, At(o.From), At(o.To))}
		if !o.Explained() {
			bad.Found = append(bad.Found, f)
			continue
		}
		f.Detail += fmt.Sprintf(": %s, by %s", o.Window, Faults(o.Faults))
		good.Found = append(good.Found, f)
	}
	return []chaos.Section{bad, good}
}

// Faults names faults briefly, in the lock's words: kind, target and
// when.
func Faults(fs []chaos.Fault) string {
	var out []string
	for _, f := range fs {
		kind := f.Kind.String()
		if f.Kind == chaos.DeleteLeader {
			kind = words.DeleteKind
		}
		out = append(out, fmt.Sprintf("%s %s %s-%s", kind, f.Target, At(f.Start), At(f.End)))
	}
	return strings.Join(out, ", ")
}

// At prints a moment as the summary does, in UTC.
func At(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// Counted is how many findings of the report's section what are not
// explained: a broken build's test counts them.
func Counted(what string) func(chaos.Report) int {
	return func(r chaos.Report) int { return len(r.Found(what)) }
}

// Held is one CMD's critical section: the span of its lines, from its
// first (counter 1: chaos-work counts from 1 in every run) to its last.
// Exact where spans of steady lines (speaker.Stretches) are not: holders
// that hold together interleave their lines, and a stretch needs a
// writer's own consecutive lines to learn its cadence.
type Held struct {
	Name        string
	First, Last time.Time
}

// CriticalSections returns every CMD's critical section in lines, in the
// order of their first lines.
func CriticalSections(lines []chaos.Line) []Held {
	var out []Held
	open := map[string]int{} // name → its CMD's section in out
	for _, l := range lines {
		i, ok := open[l.Name]
		if !ok || l.Counter == 1 {
			open[l.Name] = len(out)
			out = append(out, Held{Name: l.Name, First: l.Time, Last: l.Time})
			continue
		}
		if l.Time.After(out[i].Last) {
			out[i].Last = l.Time
		}
	}
	return out
}

// Beside returns every two critical sections of different processes that
// share a moment, as overlaps, from the later first line to the earlier
// last.
func Beside(held []Held) []speaker.Overlap {
	var out []speaker.Overlap
	for i, a := range held {
		for _, b := range held[i+1:] {
			if a.Name == b.Name || b.First.After(a.Last) || a.First.After(b.Last) {
				continue
			}
			from, to := a.First, a.Last
			if b.First.After(from) {
				from = b.First
			}
			if b.Last.Before(to) {
				to = b.Last
			}
			out = append(out, speaker.Overlap{A: a.Name, B: b.Name, From: from, To: to})
		}
	}
	return out
}
