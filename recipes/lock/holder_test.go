package lock

import "testing"

// The engine may stop after it offered the lock and before Lock handed it
// on (the session expired, another contender leads): that stop is a loss,
// never dropped for want of a held lock, and Lock must not hand it on.
func TestAStopBeforeTheHandoverLosesTheLock(t *testing.T) {
	t.Parallel()
	for _, paused := range []bool{false, true} {
		h := newHolder("a", func() bool { return paused })
		h.StartSpeaking(nil)
		h.StopSpeaking()
		h.held()
		if st := h.states.Current(); st != StateLost {
			t.Errorf("paused=%v: the lock is %v after a stop before the handover, want lost", paused, st)
		}
		select {
		case <-h.lost:
		default:
			t.Errorf("paused=%v: Lost still open after the stop", paused)
		}
	}
	h := newHolder("b", func() bool { return false })
	h.StopSpeaking() // before anything was offered: nothing to lose
	h.StartSpeaking(nil)
	h.held()
	if st := h.states.Current(); st != StateHeld {
		t.Errorf("a stop before the offer left the lock offered after it %v, want held", st)
	}
}
