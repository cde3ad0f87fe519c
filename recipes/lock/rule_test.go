package lock

import (
	"strings"
	"testing"

	"zkspeaker/nodemonitor"
)

// TestReadersAndWritersStandByTheWebsitesRule walks the shared lock's
// rules as pure functions of the line: a line is its contenders' kinds in
// order of sequence (w a writer, whose znode is the exclusive lock's "n_";
// r a reader), ours is marked with '*', and watch is the index of the one
// we watch, -1 when we hold.
func TestReadersAndWritersStandByTheWebsitesRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line  string
		watch int
	}{
		{"*r", -1},
		{"r r *r", -1},      // readers share
		{"w *r", 0},         // a reader waits for the writer ahead
		{"r w r *r", 1},     // the nearest writer, not the reader just ahead
		{"w r w r r *r", 2}, // the nearest writer of several
		{"*w", -1},          // the plain lock, alone
		{"r r *w", 1},       // a writer waits for the one just ahead, reader
		{"w *w", 0},         // or writer
		{"r w *w r", 1},     // nobody behind counts
		{"x r *w", 1},       // a kind of no rule of ours blocks nobody
		{"x *r", -1},
		{"r *w r r", 0}, // behind us, readers change nothing
		{"r r r w r *w", 4},
		{"w r r r *r w r", 0},
		{"r *r w r", -1},
		{"w w w *w w w w", 2},
	}
	for _, c := range cases {
		var children []string
		ours := -1
		var rule nodemonitor.Rule
		for i, k := range strings.Fields(c.line) {
			if k[0] == '*' {
				k, ours = k[1:], i
			}
			kind := map[string]string{"w": nodemonitor.Prefix, "r": readPrefix, "x": "lock-"}[k]
			children = append(children, kind+strings.Repeat("0", 9)+string(rune('0'+i)))
			if i == ours {
				rule = map[string]nodemonitor.Rule{"w": writer{}, "r": reader{}}[k]
			}
		}
		line := nodemonitor.Line(children)
		lead, watch := rule.Stand(line, ours)
		want := ""
		if c.watch >= 0 {
			want = line[c.watch].Name
		}
		if lead != (c.watch < 0) || watch != want {
			t.Errorf("%T on %q: lead %v, watch %q; want watch %q", rule, c.line, lead, watch, want)
		}
	}
}
