package semaphore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/speaker"
)

// check finds every moment at which more CMDs wrote than there are
// leases, each explained when the CMDs beyond the leases are all stale
// holders in a documented window (lock.Judge): CMDs that were there before
// the one whose start made the crowd, which is never the stale one; and
// every contender's znode left at the gate.
func check(in chaos.Input, lines []chaos.Line) []chaos.Section {
	bad := chaos.Section{What: TooMany, Mark: "too many"}
	good := chaos.Section{What: "explained " + TooMany, Explained: true}
	for _, c := range crowds(lock.CriticalSections(lines)) {
		var stale []chaos.Fault
		n := 0
		for _, name := range c.older {
			judged := lock.Judge(in, []speaker.Overlap{{A: name, B: name, From: c.from, To: c.to}})[0]
			if judged.Explained() {
				n++
				for _, f := range judged.Faults {
					if !slices.ContainsFunc(stale, func(g chaos.Fault) bool { return g.Kind == f.Kind && g.Target == f.Target && g.Start.Equal(f.Start) }) {
						stale = append(stale, f)
					}
				}
			}
		}
		f := chaos.Finding{Time: c.from, Detail: fmt.Sprintf("%d CMDs wrote at once from %s to %s: %s",
			len(c.names), lock.At(c.from), lock.At(c.to), strings.Join(c.names, ", "))}
		if len(c.names)-n > Leases {
			bad.Found = append(bad.Found, f)
			continue
		}
		f.Detail += ": stale holders, by " + lock.Faults(stale)
		good.Found = append(good.Found, f)
	}
	gate := chaos.Section{What: Gate}
	left, _ := in.Record.([]string)
	for _, z := range left {
		gate.Found = append(gate.Found, chaos.Finding{Detail: z + " is still in ZooKeeper after every process exited"})
	}
	return []chaos.Section{bad, good, gate}
}

// crowd is a span in which more CMDs wrote than there are leases: names
// are all of them, older those that started before the one that made it.
type crowd struct {
	names, older []string
	from, to     time.Time
}

// crowds are the spans in which more CMDs wrote than there are leases.
func crowds(held []lock.Held) []crowd {
	var out []crowd
	for _, c := range moments(held) {
		if len(c.names) > Leases {
			out = append(out, c)
		}
	}
	return out
}

// moments finds, at each first line of a CMD, the critical sections that
// share that moment, and the span until the first of them ends. A count
// of holders rises only where a CMD starts, so none is missed.
func moments(held []lock.Held) []crowd {
	var out []crowd
	for i, s := range held {
		c := crowd{names: []string{s.Name}, from: s.First, to: s.Last}
		for j, o := range held {
			if j == i || o.First.After(s.First) || o.Last.Before(s.First) {
				continue
			}
			c.names, c.older = append(c.names, o.Name), append(c.older, o.Name)
			if o.Last.Before(c.to) {
				c.to = o.Last
			}
		}
		slices.Sort(c.names)
		out = append(out, c)
	}
	return out
}

// held are the CMDs' critical sections in the out file, each a lease
// held.
func held(in chaos.Input) []lock.Held {
	lines, err := chaos.ReadLines(in.Out)
	if err != nil {
		return nil // the core's Check has failed on it already
	}
	return lock.CriticalSections(lines)
}

// most is the most CMDs that wrote at once.
func most(in chaos.Input) int {
	out := 0
	for _, c := range moments(held(in)) {
		out = max(out, len(c.names))
	}
	return out
}

// leftAtGate lists the contenders' znodes at the gate, waiting up to a
// session and a second for those of killed contenders to expire with
// their sessions: a leak only if they stay.
func leftAtGate(env *chaos.Env, session time.Duration) []string {
	ctx, cancel := context.WithTimeout(context.Background(), session+5*time.Second)
	defer cancel()
	deadline := time.Now().Add(session + time.Second)
	for {
		children, err := env.Conn().Children(ctx, root+"/gate")
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return []string{fmt.Sprintf("%s/gate (could not list it: %v)", root, err)}
		}
		if len(children) == 0 || time.Now().After(deadline) {
			var out []string
			for _, c := range children {
				out = append(out, root+"/gate/"+c)
			}
			return out
		}
		chaos.Sleep(ctx, 100*time.Millisecond)
	}
}
