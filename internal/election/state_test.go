package election

import (
	"errors"
	"testing"
)

func TestStateAndPolicyNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[State]string{StateInactive: "inactive", StateActive: "active", StatePaused: "paused", StateClosed: "closed", State(9): "unknown"} {
		if s.String() != want {
			t.Errorf("State(%d) = %q, want %q", s, s.String(), want)
		}
	}
	for _, p := range []Policy{AtMostOne, AtLeastOne} {
		back, err := ParsePolicy(p.String())
		if err != nil || back != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p, back, err)
		}
	}
	if _, err := ParsePolicy("at-most-two"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParsePolicy of a bad value = %v, want ErrInvalid", err)
	}
}
