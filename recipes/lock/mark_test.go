package lock_test

import (
	"testing"

	"zkspeaker/recipes/lock"
)

// A mark is a second line after the name: ReadMark gives the name back
// whole, and a request marks once, the first requester's.
func TestMarkKeepsTheNameAndReadsBack(t *testing.T) {
	for _, tc := range []struct {
		data, by, name, readBy string
	}{
		{"host:4242", "host:5151", "host:4242", "host:5151"},
		{"ann", "", "ann", ""},
		{"", "ops", "", "ops"},
	} {
		marked := lock.MarkRevoke([]byte(tc.data), tc.by)
		name, by, ok := lock.ReadMark(marked)
		if !ok || name != tc.name || by != tc.readBy {
			t.Errorf("ReadMark(%q) = %q, %q, %v; want %q, %q, true", marked, name, by, ok, tc.name, tc.readBy)
		}
		if again := lock.MarkRevoke(marked, "someone else"); string(again) != string(marked) {
			t.Errorf("a second request changed the mark: %q, want %q", again, marked)
		}
	}
	want := "host:4242\n" + lock.RevokeMark + " by host:5151"
	if got := string(lock.MarkRevoke([]byte("host:4242"), "host:5151")); got != want {
		t.Errorf("mark %q, want %q", got, want)
	}
}

// Data without a mark is the name alone, even a name whose own second line
// starts like one.
func TestUnmarkedDataIsTheName(t *testing.T) {
	for _, data := range []string{"ann", "", "ann\nrevoke requestedly", "ann\nrevoke requested by x\nmore"} {
		if name, _, ok := lock.ReadMark([]byte(data)); ok || name != data {
			t.Errorf("ReadMark(%q) = %q, %v; want the data, unmarked", data, name, ok)
		}
	}
}
