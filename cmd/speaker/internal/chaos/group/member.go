package group

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// memberNames lists the group soak's members, sorted: every process but
// the watcher.
func memberNames(lives map[string][]chaos.Span) []string {
	var out []string
	for name := range lives {
		if name != watcherName {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// faultOn says whether f may keep the process called name out of step for
// a while: a fault of its own process or network, an operator's delete of
// its znode or of the whole group, or a fault of the servers, which every
// session rides out at once. A fault on another member is none of these:
// each member has its own session and its own proxies.
func faultOn(f chaos.Fault, name string) bool {
	switch f.Kind {
	case chaos.ServerKill, chaos.QuorumLoss, chaos.DataLoss, chaos.DeletePath:
		return true
	case chaos.DeleteLeader:
		return f.Target == groupPath+"/"+name
	}
	return f.Target == name
}

// owed reports whether the process called name must be in step at t: it
// runs at t, and its life began, and its last fault (faultOn) ended, more
// than the bound before. since is the later of the two.
func owed(in chaos.Input, name string, t time.Time, bound time.Duration) (since time.Time, owed bool) {
	ls := rec(in).Lives[name]
	i := slices.IndexFunc(ls, func(l chaos.Span) bool { return covers(l, t) })
	if i < 0 {
		return time.Time{}, false
	}
	since = ls[i].From
	for _, f := range in.Faults {
		if f.Start.After(t) {
			break // in order of Start
		}
		if faultOn(f, name) && f.End.After(since) {
			since = f.End
		}
	}
	return since, t.After(since.Add(bound))
}

// watcherWrong compares the watcher's last report at or before the i'th
// reading with that reading, member by member. It judges only when the
// watcher is owed its own view (its process has run, with no fault of its
// own nor of the servers, for the bound), and only the members whose place
// in the listing has settled: owed, or gone for the bound, and listed the
// same in every reading since the watcher's lag (a notification, a read
// and a line: sampleEvery, and the slack).
func watcherWrong(in chaos.Input, i int, members []string, bound time.Duration) []chaos.Finding {
	g, r := rec(in), rec(in).Samples[i]
	if _, ok := owed(in, watcherName, r.At, bound); !ok {
		return nil
	}
	w, ok := lastReport(g, r.At)
	if !ok {
		return []chaos.Finding{{Time: r.At, Detail: fmt.Sprintf("the watcher has reported nothing since its start at %s", chaos.Clock(g.Lives[watcherName][0].From))}}
	}
	lag := r.At.Add(-(sampleEvery + in.Slack))
	var out []chaos.Finding
	for _, m := range members {
		listed := slices.Contains(r.Members, m)
		if _, due := owed(in, m, r.At, bound); !due {
			if _, gone := goneFor(in, g.Lives[m], r.At, bound); !gone {
				continue
			}
		}
		if !steady(g.Samples[:i+1], m, listed, lag) || slices.Contains(w.Members, m) == listed {
			continue
		}
		detail := fmt.Sprintf("the watcher's last report (%s) lists %s; ZooKeeper does not", chaos.Clock(w.At), m)
		if listed {
			detail = fmt.Sprintf("the watcher's last report (%s) does not list %s; ZooKeeper does", chaos.Clock(w.At), m)
		}
		out = append(out, chaos.Finding{Time: r.At, Detail: detail})
	}
	return out
}

// steady reports whether every reading back to one at or before by lists m
// as listed says: the change, if any, came early enough for the watcher to
// have reported it.
func steady(samples []reading, m string, listed bool, by time.Time) bool {
	for j := len(samples) - 1; j >= 0; j-- {
		if slices.Contains(samples[j].Members, m) != listed {
			return false
		}
		if !samples[j].At.After(by) {
			return true
		}
	}
	return false
}

// lastReport returns the watcher's last report at or before t.
func lastReport(g *Record, t time.Time) (reading, bool) {
	i, _ := slices.BinarySearchFunc(g.Reports, t, func(r reading, t time.Time) int {
		if r.At.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return reading{}, false
	}
	return g.Reports[i-1], true
}

// memberHit names the member a fault hit: its process or network, or an
// operator's delete of its znode; "" for the watcher's faults and the
// servers'.
func memberHit(f chaos.Fault) string {
	if f.Kind == chaos.DeleteLeader {
		if m, ok := strings.CutPrefix(f.Target, groupPath+"/"); ok {
			return m
		}
		return ""
	}
	if f.Kind.HitsAProcess() && f.Target != watcherName {
		return f.Target
	}
	return ""
}

// leftOut is what followed a fault on a member: whether a reading after
// it, and before the member's next fault, left the member out, and when a
// reading listed it again.
func leftOut(in chaos.Input, f chaos.Fault) chaos.Outcome {
	m := memberHit(f)
	if m == "" {
		return chaos.Outcome{}
	}
	next := in.End
	for _, g := range in.Faults {
		if g.Start.After(f.Start) && memberHit(g) == m && g.Start.Before(next) {
			next = g.Start
		}
	}
	o := chaos.Outcome{On: true}
	for _, r := range rec(in).Samples {
		switch listed := slices.Contains(r.Members, m); {
		case r.At.Before(f.Start):
		case !o.Left && !listed && r.At.Before(next):
			o.Left = true
		case o.Left && listed:
			o.Came, o.Took = true, r.At.Sub(f.Start)
			return o
		}
	}
	return o
}
