package chaos

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/speaker"
)

// recipeReports are a short soak of each recipe, recorded: what its
// report must say in the recipe's own words, the rows its fault table
// must have, and the words it must not use.
var recipeReports = []struct {
	recipe string
	in     func() Input
	want   []string // substrings of the report
	rows   []string // rows of its fault table, by their fields
	never  []string // words a soak of this recipe has no use for
}{
	{
		recipe: RecipeLock,
		in: func() Input {
			// s1's CMD holds the lock until 0.9 s; s1 is killed while it
			// holds it at 1.05 s; s2's CMD writes from 1.5 s.
			o := (&outFile{}).speak("s1", 1, 10, 0, 10).speak("s2", 1, 20, 1500*time.Millisecond, 10)
			return input(o, 3*time.Second, fault(Kill, "s1", 1050*time.Millisecond, 1050*time.Millisecond, true))
		},
		want: []string{"lines of CMD 20, critical sections 2, contenders that held the lock 2 (s1, s2)\n", "hit the holder",
			"overlapping critical sections: 0 explained, 0 unexplained\n"},
		rows:  []string{"kill 1 1 450ms 450ms 450ms 0"},
		never: []string{"leader", "terms", "speaker"},
	},
	{
		recipe: RecipeGroup,
		in: func() Input {
			// m1 frozen from 1 s to 5 s, left out of the listing from
			// 3.5 s to 6 s; m2 frozen for a moment, never left out; m3
			// killed at 8 s and out from 8.5 s to the end.
			return groupHistory{end: 10 * time.Second, faults: []Fault{
				fault(StopLong, "m1", time.Second, 5*time.Second, false),
				fault(StopShort, "m2", 2*time.Second, 2500*time.Millisecond, false),
				fault(Kill, "m3", 8*time.Second, 8*time.Second, false),
			}, gaps: []gap{{member: "m1", from: 3500 * time.Millisecond, to: 6 * time.Second}, {member: "m3", from: 8500 * time.Millisecond}}}.input()
		},
		want:  []string{"readings 50, members 3 (m1, m2, m3), watcher reports 4\n", "left out of the listing by a reading before its next fault"},
		rows:  []string{"stop-long 1 1 1 5s 5s 5s 0", "stop-short 1 1 0 - - - 0", "kill 1 1 1 - - - 1"},
		never: []string{"leader", "handover", "terms", "speaker", "writers", "epoch"},
	},
	{
		recipe: RecipeConfig,
		in: func() Input {
			// v1 prints u1's values every 500 ms; u1 is frozen from 1.1 s
			// to 1.4 s, and v1 prints again at 1.5 s.
			o := &outFile{}
			for i := range 6 {
				at := time.Duration(i) * 500 * time.Millisecond
				o.entries = append(o.entries, entry{t: ts(at), line: speaker.Line{Time: ts(at), Name: "v1", Counter: uint64(i + 1), Extra: []string{"value=" + strconv.Itoa(i+1)}}})
			}
			in := input(o, 3*time.Second, fault(StopShort, "u1", 1100*time.Millisecond, 1400*time.Millisecond, false))
			in.Fence = false
			in.Config = &ConfigInput{Values: map[string][]watched{"v1": {{At: ts(0), Life: 1, Value: 6}}}, Acked: map[string]int64{"u1": 6},
				Final: map[string]int64{"u1": 6}, Unsure: map[string]map[int64]bool{"u1": {}}, Tried: map[string]int{"u1": 6}}
			return in
		},
		want:  []string{"values seen by the watchers 6 (v1), writes tried 6, acknowledged 6\n", "its key's watcher", "leaks: not looked for"},
		rows:  []string{"stop-short 1 1 400ms 400ms 400ms 0"},
		never: []string{"leader", "handover", "terms", "speaker", "writers", "epoch"},
	},
	{
		recipe: RecipeSeqid,
		in: func() Input {
			// w1 takes IDs 1 to 10 until 0.9 s, the persistence leader p1
			// is killed at 1 s, and w2 takes 11 to 20 from 1.2 s.
			o := &outFile{}
			for i := range 20 {
				at, name := time.Duration(i)*step, "w1"
				if i >= 10 {
					at, name = 1200*time.Millisecond+time.Duration(i-10)*step, "w2"
				}
				o.entries = append(o.entries, entry{t: ts(at), line: speaker.Line{Time: ts(at), Name: name, Counter: uint64(i%10 + 1), Extra: []string{"id=" + strconv.Itoa(i+1)}}})
			}
			in := input(o, 3*time.Second, fault(Kill, "p1", time.Second, time.Second, true))
			in.Fence, in.IDs = false, true
			return in
		},
		want:  []string{"IDs handed out 20, by workers 2 (w1, w2)\n", "hit the leader of the persisters"},
		rows:  []string{"kill 1 1 200ms 200ms 200ms 0"},
		never: []string{"terms", "speaker", "writers", "handover", "epoch"},
	},
}

// A soak of another program is reported in its words: a lock's holders
// and critical sections, a group's members and how long each was left out
// of the listing, a key's updater and watcher, the sequence's workers and
// its persisters' leader; never a speaker's leader, handovers or terms
// where the program has none.
func TestReportSpeaksTheRecipesWords(t *testing.T) {
	for _, c := range recipeReports {
		in := c.in()
		in.Recipe = c.recipe
		text := written(check(t, in))
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in the report:\n%s", c.recipe, w, text)
			}
		}
		for _, row := range c.rows {
			if !hasRow(text, row) {
				t.Errorf("%s: no row %q in the report:\n%s", c.recipe, row, text)
			}
		}
		for _, w := range c.never {
			if regexp.MustCompile(`(?i)\b` + w).MatchString(text) {
				t.Errorf("%s: the report says %q:\n%s", c.recipe, w, text)
			}
		}
	}
}
