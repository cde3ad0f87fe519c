package group

import (
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
)

// gap is a stretch of the soak in which ZooKeeper does not list a member.
type gap struct {
	member   string
	from, to time.Duration // to 0: till the end
}

// groupHistory is a recorded group soak: members m1, m2 and m3 and a
// watcher, each one life from the start unless lives says otherwise; the
// operator reads the group every sampleEvery and finds every member but
// those in a gap; the watcher reports each gap's ends 10 ms after them,
// except the ends listed in deaf.
type groupHistory struct {
	end    time.Duration
	gaps   []gap
	lives  map[string][]chaos.Span
	faults []chaos.Fault
	deaf   []string // "+ m2": a change the watcher never reports
}

var groupMembers = []string{"m1", "m2", "m3"}

func (h groupHistory) listed(m string, at time.Duration) bool {
	return !slices.ContainsFunc(h.gaps, func(g gap) bool { return g.member == m && at >= g.from && (g.to == 0 || at < g.to) })
}

// input is the checker's input for the history, with the tests' bounds:
// session 4 s, tick 500 ms, no slack, so a member is owed its place in
// the listing 4.7 s after its last fault.
func (h groupHistory) input() chaos.Input {
	g := &Record{Lives: map[string][]chaos.Span{}}
	for _, m := range append(slices.Clone(groupMembers), watcherName) {
		g.Lives[m] = []chaos.Span{{From: chaostest.TS(0)}}
		if ls, ok := h.lives[m]; ok {
			g.Lives[m] = ls
		}
	}
	for at := sampleEvery; at <= h.end; at += sampleEvery {
		var r reading
		r.At = chaostest.TS(at)
		for _, m := range groupMembers {
			if h.listed(m, at) {
				r.Members = append(r.Members, m)
			}
		}
		g.Samples = append(g.Samples, r)
	}
	g.Reports = h.reports()
	in := chaostest.Input(&chaostest.OutFile{}, h.end, h.faults...)
	in.Recipe, in.Record = Name, g
	return in
}

// reports are the watcher's: its first reading at 50 ms, then each gap's
// ends as they happen, 10 ms late.
func (h groupHistory) reports() []reading {
	type change struct {
		at   time.Duration
		text string
	}
	var cs []change
	for _, g := range h.gaps {
		cs = append(cs, change{g.from + 10*time.Millisecond, "- " + g.member})
		if g.to != 0 {
			cs = append(cs, change{g.to + 10*time.Millisecond, "+ " + g.member})
		}
	}
	slices.SortFunc(cs, func(a, b change) int { return int(a.at - b.at) })
	set := slices.Clone(groupMembers)
	out := []reading{{At: chaostest.TS(50 * time.Millisecond), Members: slices.Clone(set), Life: 1, Change: "first"}}
	for _, c := range cs {
		if slices.Contains(h.deaf, c.text) {
			continue
		}
		op, m, _ := strings.Cut(c.text, " ")
		if set = slices.DeleteFunc(set, func(x string) bool { return x == m }); op == "+" {
			set = append(set, m)
			slices.Sort(set)
		}
		out = append(out, reading{At: chaostest.TS(c.at), Members: slices.Clone(set), Life: 1, Change: c.text})
	}
	return out
}

// resets are a fault every 700 ms from 1.3 s to the end, on each of
// targets in turn: the busy soak in which, before, nothing was ever judged.
func resets(end time.Duration, targets ...string) []chaos.Fault {
	var fs []chaos.Fault
	for i, at := 0, 1300*time.Millisecond; at < end; i, at = i+1, at+700*time.Millisecond {
		fs = append(fs, chaostest.Fault(chaos.Reset, targets[i%len(targets)], at, at+50*time.Millisecond, false))
	}
	return fs
}

// groupFindings runs the checker on h and returns its listing and watcher
// findings.
func groupFindings(t *testing.T, h groupHistory) (listing, watcher []chaos.Finding) {
	t.Helper()
	r := chaostest.Check(t, h.input())
	if r.Recipe != Name || len(r.Own) == 0 {
		t.Fatal("the report does not say it judged a group")
	}
	return r.Found("wrong listings"), r.Found("wrong watcher reports")
}

// A member whose process runs and that had no fault of its own must be
// listed once the bound has passed, however busy the soak is with the
// other members: a build whose m1 does not join again after an operator
// deleted its znode fails, at the first reading past the bound.
func TestGroupCheckSeesAMemberLeftOut(t *testing.T) {
	faults := append([]chaos.Fault{{Kind: chaos.DeleteLeader, Target: groupPath + "/m1", Start: chaostest.TS(time.Second), End: chaostest.TS(time.Second), Leader: true}},
		resets(20*time.Second, "m2", "m3", "watcher")...)
	slices.SortFunc(faults, func(a, b chaos.Fault) int { return a.Start.Compare(b.Start) })
	listing, _ := groupFindings(t, groupHistory{end: 20 * time.Second, faults: faults, gaps: []gap{{member: "m1", from: time.Second}}})
	if len(listing) != 1 {
		t.Fatalf("%d listing findings, want 1 (m1 missing from 5.7 s on): %v", len(listing), listing)
	}
	// The delete at 1 s, plus the bound of 4.7 s: the reading at 5.8 s.
	if f := listing[0]; !f.Time.Equal(chaostest.TS(5800*time.Millisecond)) || !strings.HasPrefix(f.Detail, "m1 not listed") {
		t.Errorf("finding at %s: %q, want m1 not listed at 12:00:05.800", chaos.Clock(f.Time), f.Detail)
	}
}

// A member's absence is explained by its own fault, a server's, or its
// process starting anew, for the bound after it; a reading past that bound
// must list it again. Each case ends its gap either at the first reading
// past the bound (pass) or one reading later (a finding at that reading).
func TestGroupCheckExcusesOnlyWhatTheMembersOwnFaultsExplain(t *testing.T) {
	const B = 4700 * time.Millisecond // the bound of these tests
	restarted := map[string][]chaos.Span{"m1": {{From: chaostest.TS(0), To: chaostest.TS(time.Second)}, {From: chaostest.TS(1500 * time.Millisecond)}}}
	for _, c := range []struct {
		name   string
		faults []chaos.Fault
		lives  map[string][]chaos.Span
		from   time.Duration // m1's gap; it ends at healed + B (+ a reading)
		healed time.Duration
	}{
		{name: "its own black hole", faults: []chaos.Fault{chaostest.Fault(chaos.HoleLong, "m1", time.Second, 8*time.Second, false)}, from: 5500 * time.Millisecond, healed: 8 * time.Second},
		{name: "its own frozen process", faults: []chaos.Fault{chaostest.Fault(chaos.StopLong, "m1", time.Second, 7*time.Second, false)}, from: 5500 * time.Millisecond, healed: 7 * time.Second},
		{name: "an operator's delete of its znode", faults: []chaos.Fault{{Kind: chaos.DeleteLeader, Target: groupPath + "/m1", Start: chaostest.TS(time.Second), End: chaostest.TS(time.Second)}}, from: time.Second, healed: time.Second},
		{name: "a quorum loss", faults: []chaos.Fault{chaostest.Fault(chaos.QuorumLoss, "zk1+zk2", 2*time.Second, 3*time.Second, false)}, from: 2500 * time.Millisecond, healed: 3 * time.Second},
		{name: "a server killed", faults: []chaos.Fault{chaostest.Fault(chaos.ServerKill, "zk3", 2*time.Second, 4*time.Second, false)}, from: 2500 * time.Millisecond, healed: 4 * time.Second},
		{name: "its process killed and started again", faults: []chaos.Fault{chaostest.Fault(chaos.Kill, "m1", time.Second, time.Second, false)}, lives: restarted, from: 5 * time.Second, healed: 1500 * time.Millisecond},
	} {
		due := (c.healed+B)/sampleEvery*sampleEvery + sampleEvery // the first reading past the bound: m1 must be back
		for _, late := range []bool{false, true} {
			to := due
			if late {
				to += sampleEvery
			}
			faults := append(slices.Clone(c.faults), resets(25*time.Second, "m2", "m3")...)
			slices.SortFunc(faults, func(a, b chaos.Fault) int { return a.Start.Compare(b.Start) })
			h := groupHistory{end: 25 * time.Second, faults: faults, lives: c.lives, gaps: []gap{{member: "m1", from: c.from, to: to}}}
			listing, watcher := groupFindings(t, h)
			switch {
			case len(watcher) > 0:
				t.Errorf("%s: the watcher, which followed every change, has findings: %v", c.name, watcher)
			case !late && len(listing) > 0:
				t.Errorf("%s: m1 back at the first reading past the bound, yet findings: %v", c.name, listing)
			case late && (len(listing) != 1 || !listing[0].Time.Equal(chaostest.TS(due))):
				t.Errorf("%s: m1 back a reading late; want one finding at %s, got %v", c.name, chaos.Clock(chaostest.TS(due)), listing)
			}
		}
	}
}

// The watcher is judged member by member too: a watcher that never
// reports m2 joining again is wrong once m2's place has settled, however
// busy the other members and the watcher's own lag; a watcher cut off
// itself is excused for the bound after.
func TestGroupCheckHoldsTheWatcherToEachMember(t *testing.T) {
	del := chaos.Fault{Kind: chaos.DeleteLeader, Target: groupPath + "/m2", Start: chaostest.TS(2 * time.Second), End: chaostest.TS(2 * time.Second)}
	busy := append([]chaos.Fault{del}, resets(20*time.Second, "m1", "m3")...)
	slices.SortFunc(busy, func(a, b chaos.Fault) int { return a.Start.Compare(b.Start) })
	h := groupHistory{end: 20 * time.Second, faults: busy, gaps: []gap{{member: "m2", from: 2 * time.Second, to: 2050 * time.Millisecond}}, deaf: []string{"+ m2"}}
	listing, watcher := groupFindings(t, h)
	if len(listing) > 0 {
		t.Errorf("listing findings, though m2 joined again at once: %v", listing)
	}
	// m2 is owed from 2 s + 4.7 s; the first reading after: 6.8 s.
	want := "the watcher's last report (12:00:02.010) does not list m2; ZooKeeper does"
	if len(watcher) != 1 || watcher[0].Detail != want || !watcher[0].Time.Equal(chaostest.TS(6800*time.Millisecond)) {
		t.Errorf("watcher findings %v, want one at 12:00:06.800: %q", watcher, want)
	}

	// The same watcher, cut off itself until 18 s: nothing to say before
	// 22.7 s, and the soak ends at 20 s.
	h.faults = append(slices.Clone(busy), chaostest.Fault(chaos.HoleLong, watcherName, 1500*time.Millisecond, 18*time.Second, false))
	slices.SortFunc(h.faults, func(a, b chaos.Fault) int { return a.Start.Compare(b.Start) })
	if _, watcher := groupFindings(t, h); len(watcher) > 0 {
		t.Errorf("findings on a watcher cut off until 18 s: %v", watcher)
	}
}

// A group soak is reported in its words: its members and how long each
// was left out of the listing; never a leader, handovers or terms, which
// a group has none of.
func TestReportSpeaksTheRecipesWords(t *testing.T) {
	// m1 frozen from 1 s to 5 s, left out of the listing from
	// 3.5 s to 6 s; m2 frozen for a moment, never left out; m3
	// killed at 8 s and out from 8.5 s to the end.
	in := groupHistory{end: 10 * time.Second, faults: []chaos.Fault{
		chaostest.Fault(chaos.StopLong, "m1", time.Second, 5*time.Second, false),
		chaostest.Fault(chaos.StopShort, "m2", 2*time.Second, 2500*time.Millisecond, false),
		chaostest.Fault(chaos.Kill, "m3", 8*time.Second, 8*time.Second, false),
	}, gaps: []gap{{member: "m1", from: 3500 * time.Millisecond, to: 6 * time.Second}, {member: "m3", from: 8500 * time.Millisecond}}}.input()
	in.Recipe = Name
	chaostest.SpeaksItsWords(t, in,
		[]string{"readings 50, members 3 (m1, m2, m3), watcher reports 4\n", "left out of the listing by a reading before its next fault"},
		[]string{"stop-long 1 1 1 5s 5s 5s 0", "stop-short 1 1 0 - - - 0", "kill 1 1 1 - - - 1"},
		[]string{"leader", "handover", "terms", "speaker", "writers", "epoch"})
}
