package barrier

import (
	"fmt"
	"slices"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
)

// lost are the faults that can end a member's session, or take its znode,
// while its CMD runs on unaware: frozen, cut off, or its znode deleted.
var lost = []chaos.Kind{chaos.StopLong, chaos.HoleLong, chaos.HoleShort, chaos.StopShort, chaos.Reset, chaos.Storm, chaos.DeleteLeader}

// togetherOut finds every member that saw its round empty while a CMD of
// that round had yet to write a line, its member not lost by a fault.
func togetherOut(in chaos.Input, secs []section, leaves []Leave) []chaos.Section {
	bad := chaos.Section{What: NotTogetherOut, Mark: "not together out"}
	good := chaos.Section{What: "explained " + NotTogetherOut, Explained: true}
	for _, l := range leaves {
		for _, s := range secs {
			if s.round != l.Round || s.Name == l.Name || !s.Last.After(l.At) {
				continue
			}
			f := chaos.Finding{Time: l.At, Detail: fmt.Sprintf("round %d: %s saw it empty at %s; %s's CMD wrote until %s",
				l.Round, l.Name, lock.At(l.At), s.Name, lock.At(s.Last))}
			if why := lostBy(in, s, l); why != nil {
				f.Detail += ": " + s.Name + " was no longer in it, by " + lock.Faults([]chaos.Fault{*why})
				good.Found = append(good.Found, f)
				continue
			}
			bad.Found = append(bad.Found, f)
		}
	}
	return []chaos.Section{bad, good}
}

// lostBy returns the latest fault by which s's member was no longer in the round
// when l saw it empty: one of lost on s's slot (or any member's znode
// deleted) that began before l and ended no more than a session before
// s's CMD began (its session could still end by it), and after which s's
// CMD stopped within the bound; nil when there is none.
func lostBy(in chaos.Input, s section, l Leave) *chaos.Fault {
	var by *chaos.Fault
	for _, f := range in.Faults {
		if !slices.Contains(lost, f.Kind) || f.Start.After(l.At) || f.Target != s.Name && f.Kind != chaos.DeleteLeader {
			continue
		}
		if f.End.Add(in.Session + in.Slack).Before(s.First) {
			continue // over, its session safe, before this CMD began
		}
		if !s.Last.After(later(f.End, l.At).Add(in.Session + in.Interval + in.Slack)) {
			by = &f // the faults are in order: the last one is nearest
		}
	}
	return by
}
