package main

import (
	"time"

	"zkspeaker/recipes/lock"
)

// lockChanged acts on a change of the lock's state.
func (sv *supervisor) lockChanged(st lock.State) {
	switch {
	case !sv.renewing:
		// CMD is stopping already.
	case sv.frozenPast():
		// zklock itself was stopped past CMD's deadline: whatever it
		// hears first now, the watchdog has killed CMD meanwhile.
		sv.log.Warn("the lock is "+st.String()+", and CMD is gone: zklock could not renew CMD's deadline (frozen?), so the watchdog stopped CMD at "+
			sv.last.Format(time.TimeOnly+".000")+", before anyone else could hold the lock", "deadline", sv.last)
		sv.stop(watchdogWhy)
	case st == lock.StateSuspended && sv.frozenAt.IsZero():
		// At-most-one: CMD acts only while the lock is proved ours. The
		// deadline it holds still ends it if the proof never comes.
		sv.frozenAt = time.Now()
		_ = sendOrder(sv.w, orderFreeze)
		sv.log.Warn("lost the connection: CMD frozen (SIGSTOP) until the lock is proved ours again, or killed when it cannot be",
			"deadline", sv.last.Format(time.TimeOnly+".000"))
	case st == lock.StateHeld && !sv.frozenAt.IsZero() && time.Now().After(sv.last):
		// Proved ours, but only after CMD's deadline, at which the
		// watchdog killed the frozen CMD: there is nothing to thaw.
		sv.log.Warn("the lock is ours again, but too late for CMD: its deadline passed while it was frozen, and the watchdog killed it",
			"deadline", sv.last.Format(time.TimeOnly+".000"))
		sv.stop(frozenTooLong)
	case st == lock.StateHeld && !sv.frozenAt.IsZero():
		frozen := time.Since(sv.frozenAt)
		sv.frozenAt = time.Time{}
		sv.last = sv.deadline()
		_ = sendDeadline(sv.w, sv.last) // first: CMD wakes with a deadline from now
		_ = sendOrder(sv.w, orderThaw)
		sv.log.Info("reconnected in time and the lock is still ours: CMD thawed (SIGCONT)", "frozen_for", frozen.Round(time.Millisecond))
	case st == lock.StateLost && !sv.frozenAt.IsZero():
		sv.log.Warn("the lock is lost: killing the frozen CMD (SIGKILL), which must not act again")
		sv.stop("the lock was lost")
	case st == lock.StateLost:
		sv.log.Warn("the lock is lost: stopping CMD before anyone else can hold it")
		sv.stop("the lock was lost")
	}
}

// stop ends CMD: a frozen CMD is killed at once, for it must not act on
// a lock it cannot prove; a running one gets SIGTERM, then SIGKILL after
// the grace or at the deadline, whichever comes first. The watchdog does
// both when the pipe closes.
func (sv *supervisor) stop(why string) {
	if !sv.renewing {
		return
	}
	sv.why, sv.renewing = why, false
	if !sv.frozenAt.IsZero() {
		_ = sendOrder(sv.w, orderKill)
	}
	sv.w.Close()
}
