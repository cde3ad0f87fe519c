package znodemonitor_test

import (
	"testing"

	"zkspeaker/znodemonitor"
)

func TestNameTagRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"f1", "a/b", "été", "100%", "..x"} {
		tag, ok := znodemonitor.NameTag("/speaker", name)
		if !ok {
			t.Errorf("NameTag(%q): no tag", name)
			continue
		}
		if got, ok := znodemonitor.TaggedName("/speaker", tag); !ok || got != name {
			t.Errorf("TaggedName(NameTag(%q) = %q) = %q, %v", name, tag, got, ok)
		}
	}
	for _, name := range []string{".", ".."} {
		if tag, ok := znodemonitor.NameTag("/speaker", name); ok {
			t.Errorf("NameTag(%q) = %q, want none: ZooKeeper refuses such a path", name, tag)
		}
	}
	if _, ok := znodemonitor.TaggedName("/speaker", "/other/f1"); ok {
		t.Error("TaggedName took a path outside the election")
	}
}
