package queue

import (
	"slices"
	"testing"
)

// The names a put asks for sort in the order of takes, and read back as
// their priority and sequence; other children are not items.
func TestNamesSortInTheOrderOfTakes(t *testing.T) {
	seqd := func(priority int, seq string) string { return prefixFor(priority) + seq }
	children := []string{
		seqd(0, "0000000001"), ledgersDir, seqd(MaxPriority, "0000000004"), seqd(5, "0000000003"),
		seqd(5, "0000000002"), "item-12-0000000001", "item-abc-0000000001", seqd(0, "0000000005"),
	}
	want := []string{seqd(MaxPriority, "0000000004"), seqd(5, "0000000002"), seqd(5, "0000000003"), seqd(0, "0000000001"), seqd(0, "0000000005")}
	if got := items(children); !slices.Equal(got, want) {
		t.Fatalf("items: %v, want %v", got, want)
	}
	for _, tc := range []struct {
		name     string
		priority int
		seq      int64
		ok       bool
	}{
		{"item-999-0000000001", 0, 1, true},
		{"item-000-0000000042", MaxPriority, 42, true},
		{"item-990-2147483647", 9, 2147483647, true},
		{ledgersDir, 0, 0, false},
		{"item-99-00000000001", 0, 0, false},
	} {
		p, s, ok := parseName(tc.name)
		if p != tc.priority || s != tc.seq || ok != tc.ok {
			t.Errorf("parseName(%q) = %d, %d, %v; want %d, %d, %v", tc.name, p, s, ok, tc.priority, tc.seq, tc.ok)
		}
	}
	for _, p := range []int{-1, MaxPriority + 1} {
		if checkPriority(p) == nil {
			t.Errorf("priority %d accepted", p)
		}
	}
}
