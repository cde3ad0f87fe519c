package group

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Record is what the group soak adds to the checker's input
// (Input.Record).
type Record struct {
	// Samples are the operator's readings of the group, in time order.
	Samples []reading
	// Reports are the watcher's readings, one per line it printed.
	Reports []reading
	// Lives says when each process ran: every member's, and the watcher's.
	Lives map[string][]chaos.Span
	// Unread are the spans in which the operator's reads failed (servers
	// down, the quorum lost): no reading says who was listed then. The
	// checker judges only readings; the picture hatches these.
	Unread []chaos.Span
}

// groupBound is how long after a member's last change (a fault of its
// own or of the servers healed, its process started) ZooKeeper's listing
// must show it as it is: a dead member's session must expire (S), the
// servers notice (a tick), a reading come (sampleEvery), and the slack.
func groupBound(in chaos.Input) time.Duration {
	return in.Session + in.Tick + sampleEvery + in.Slack
}

// checkGroup holds the group soak to its rules, judging each member on its
// own at every reading: a member whose process has run, with no fault of
// its own nor of the servers, for the bound is listed (owed); no member is
// listed past the bound after its process ended (goneFor); the watcher,
// itself settled, agrees with ZooKeeper about each member whose listing has
// settled (watcherWrong); and it never reports a member joining whose
// process had ended before the bound. A fault on one member excuses no
// other member's absence: each has its own session and its own network.
func checkGroup(in chaos.Input) (listing, watcher []chaos.Finding) {
	g, bound := rec(in), groupBound(in)
	members := memberNames(g.Lives)
	for i, r := range g.Samples {
		for _, m := range members {
			if since, owed := owed(in, m, r.At, bound); owed && !slices.Contains(r.Members, m) {
				listing = append(listing, chaos.Finding{Time: r.At, Detail: fmt.Sprintf(
					"%s not listed, though its process has run with no fault of its own or of a server since %s", m, chaos.Clock(since))})
			}
		}
		for _, m := range r.Members {
			if ended, late := goneFor(in, g.Lives[m], r.At, bound); late {
				listing = append(listing, chaos.Finding{Time: r.At, Detail: fmt.Sprintf("%s still listed, its process ended at %s", m, chaos.Clock(ended))})
			}
		}
		watcher = append(watcher, watcherWrong(in, i, members, bound)...)
	}
	for _, r := range g.Reports {
		if m, ok := strings.CutPrefix(r.Change, "+ "); ok {
			if ended, late := goneFor(in, g.Lives[m], r.At, bound); late {
				watcher = append(watcher, chaos.Finding{Time: r.At, Detail: fmt.Sprintf("the watcher reported %s joining; its process ended at %s", m, chaos.Clock(ended))})
			}
		}
	}
	return firstOfEach(listing), firstOfEach(watcher)
}

// rec is the group soak's record in the input, empty when there is none.
func rec(in chaos.Input) *Record {
	if r, ok := in.Record.(*Record); ok && r != nil {
		return r
	}
	return &Record{}
}

func covers(l chaos.Span, t time.Time) bool {
	return !l.From.After(t) && (l.To.IsZero() || l.To.After(t))
}

// goneFor reports whether a member whose lives are ls had ended more than
// the bound before t, counted from the later of its end and the end of any
// ZooKeeper fault that began before t (servers down expire no session).
func goneFor(in chaos.Input, ls []chaos.Span, t time.Time, bound time.Duration) (ended time.Time, late bool) {
	if len(ls) == 0 {
		return time.Time{}, true
	}
	last := ls[len(ls)-1]
	for _, l := range ls {
		if !l.From.After(t) {
			last = l
		}
	}
	if covers(last, t) || last.To.IsZero() || last.From.After(t) {
		return time.Time{}, false
	}
	from := last.To
	for _, f := range in.Faults {
		if (f.Kind == chaos.ServerKill || f.Kind == chaos.QuorumLoss) && !f.Start.After(t) && f.End.After(from) {
			from = f.End
		}
	}
	return last.To, t.After(from.Add(bound))
}

// firstOfEach keeps the first finding of each detail: one broken state,
// read every 200 ms, is one finding. Each detail names the member and the
// moment its state began, so two states never share one.
func firstOfEach(fs []chaos.Finding) []chaos.Finding {
	var out []chaos.Finding
	seen := map[string]bool{}
	for _, f := range fs {
		if !seen[f.Detail] {
			seen[f.Detail] = true
			out = append(out, f)
		}
	}
	return out
}
