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
	case time.Now().After(sv.last):
		// Whatever zklock hears first now, CMD's deadline has passed, and
		// the watchdog ends CMD's tree at it.
		why := sv.pastDeadline()
		sv.log.Warn("the lock is "+st.String()+", and CMD's deadline passed at "+clockTime(sv.last)+
			": the watchdog ends CMD and all it started at that deadline, before anyone else can hold the lock (its own line says when)", "because", why)
		sv.stop(why)
	case st == lock.StateSuspended && sv.frozenAt.IsZero():
		// At-most-one: CMD acts only while the lock is proved ours. The
		// deadline it holds still ends it if the proof never comes.
		sv.frozenAt = time.Now()
		_ = sendOrder(sv.w, orderFreeze)
		sv.log.Warn("lost the connection: CMD and all it started frozen (SIGSTOP) until the lock is proved ours again, or killed when it cannot be",
			"deadline", clockTime(sv.last))
	case st == lock.StateHeld && !sv.frozenAt.IsZero():
		frozen := time.Since(sv.frozenAt)
		sv.frozenAt = time.Time{}
		if !sv.pausedAt.IsZero() {
			return // Ctrl-Z holds it frozen still; fg thaws it
		}
		sv.thaw()
		sv.log.Info("reconnected in time and the lock is still ours: CMD and all it started thawed (SIGCONT)", "frozen_for", frozen.Round(time.Millisecond))
	case st == lock.StateLost && !(sv.frozenAt.IsZero() && sv.pausedAt.IsZero()):
		sv.log.Warn("the lock is lost: killing the frozen CMD and all it started (SIGKILL), which must not act again")
		sv.stop("the lock was lost")
	case st == lock.StateLost:
		sv.log.Warn("the lock is lost: stopping CMD and all it started before anyone else can hold it")
		sv.stop("the lock was lost")
	}
}

// thaw sends a deadline from now, then the order to thaw: CMD's tree wakes
// with a deadline it may act until.
func (sv *supervisor) thaw() {
	sv.last = sv.deadline()
	_ = sendDeadline(sv.w, sv.last)
	_ = sendOrder(sv.w, orderThaw)
}

// stop ends CMD's tree: a frozen tree is killed at once, for it must not
// act on a lock it cannot prove; a running one gets SIGTERM, then SIGKILL
// after the grace or at the deadline, whichever comes first. The watchdog
// does both when the pipe closes.
func (sv *supervisor) stop(why string) {
	if !sv.renewing {
		return
	}
	sv.why, sv.renewing = why, false
	if !sv.frozenAt.IsZero() || !sv.pausedAt.IsZero() {
		_ = sendOrder(sv.w, orderKill)
	} else {
		_ = sendOrder(sv.w, orderStop)
	}
	sv.w.Close()
}

func clockTime(t time.Time) string { return t.Format(time.TimeOnly + ".000") }
