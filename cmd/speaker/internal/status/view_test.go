package status

import (
	"strings"
	"testing"
	"zkspeaker/internal/fourletter"

	"zkspeaker/nodemonitor"
	"zkspeaker/znodemonitor"
)

// TestWatchesColumn holds the WATCHES column to what the servers can tell:
// a value for a session they list, and no guess for one they cannot see.
func TestWatchesColumn(t *testing.T) {
	v := nodemonitor.View{Path: "/e", Exists: true, Seats: []nodemonitor.Seat{
		{Candidate: nodemonitor.Candidate{Name: "n-0000000000", Seq: 0}, Data: "a", Owner: 1},
		{Candidate: nodemonitor.Candidate{Name: "n-0000000001", Seq: 1}, Data: "b", Owner: 2},
		{Candidate: nodemonitor.Candidate{Name: "n-0000000002", Seq: 2}, Data: "c", Owner: 3},
	}}
	watches := map[int64][]string{1: {"/e/n-0000000000"}, 2: {"/e/n-0000000000"}}
	for _, c := range []struct {
		name     string
		complete bool
		drop     int64 // a session no server lists
		want     []string
	}{
		{"every session seen", true, 0, []string{"itself", "0000000000 (a)", inferredChildren}},
		{"a session in no list, every server heard", true, 2, []string{"itself", notConnected, inferredChildren}},
		{"a session in no list, a server not heard", false, 2, []string{"itself", notVisible, inferredChildren}},
	} {
		t.Run(c.name, func(t *testing.T) {
			where := map[int64]string{}
			for _, id := range []int64{1, 2, 3} {
				if id != c.drop {
					where[id] = "127.0.0.1:2181"
				}
			}
			s := fourletter.NewSightings(watches, where, c.complete)
			for i, want := range c.want {
				if got := watching(v, i, s); got != want {
					t.Errorf("seat %d watches %q, want %q", i, got, want)
				}
			}
		})
	}
}

// TestSingleFileWaitersByName shows the waiters by the name each leaves in
// the watch lists, status's own session not at all, and a session that
// watches without a name (another status --watch) as a reader, not a
// candidate.
func TestSingleFileWaitersByName(t *testing.T) {
	tag, _ := znodemonitor.NameTag("/speaker", "f/2")
	s := fourletter.NewSightings(map[int64][]string{1: {"/speaker"}, 2: {"/speaker", tag}, 3: {"/speaker"}, 9: {"/speaker"}},
		map[int64]string{1: "a:1", 2: "a:1", 3: "a:1", 9: "a:1"}, true)
	s.Self = 9
	var b strings.Builder
	WriteSingleFile(&b, znodemonitor.Holder{Path: "/speaker", Held: true, Data: "f1", Owner: 1, Czxid: 7}, s)
	want := "  leader  f1  session 0x1  epoch 7\n  waiting 1 session watches /speaker: f/2 (0x2)\n" +
		"  1 other session watches /speaker but left no candidate's name: a reader such as status --watch or zkview, not a candidate\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
