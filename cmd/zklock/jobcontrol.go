package main

import (
	"os"
	"syscall"
	"time"
)

// Ctrl-Z in zklock's terminal sends SIGTSTP to zklock's process group, and
// neither the watchdog nor CMD is in it. zklock takes it to mean what it
// means for any job: pause the work. It freezes CMD and every process CMD
// started, then stops itself. While zklock is stopped it renews nothing,
// so the watchdog kills the frozen tree at CMD's deadline, before the
// session can expire and another contender take the lock. An fg before
// that deadline thaws the tree, still under the lock; an fg after it
// finds the tree killed and releases the lock.

// pause freezes CMD's tree and stops zklock, on Ctrl-Z.
func (sv *supervisor) pause() {
	if sv.renewing {
		if sv.pausedAt.IsZero() {
			_ = sendOrder(sv.w, orderPause)
		}
		sv.pausedAt = time.Now()
		sv.log.Warn("Ctrl-Z: CMD and all it started frozen (SIGSTOP), and zklock stops now; fg before the deadline goes on under the lock, and at the deadline the watchdog kills them",
			"deadline", clockTime(sv.last))
	}
	// Stopped as the default action of SIGTSTP would: the shell sees a
	// stopped job, and fg sends SIGCONT.
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
}

// resume acts on SIGCONT after Ctrl-Z: it thaws CMD's tree if the lock is
// still ours, and says so; it does nothing after a SIGCONT that ends a
// stop zklock did not ask for.
func (sv *supervisor) resume() {
	if sv.pausedAt.IsZero() || !sv.renewing {
		return
	}
	stopped := time.Since(sv.pausedAt).Round(time.Millisecond)
	switch {
	case time.Now().After(sv.last):
		sv.log.Warn("fg: too late for CMD: its deadline passed at "+clockTime(sv.last)+" while zklock was stopped, and the watchdog ends CMD and all it started at that deadline (its own line says when)",
			"stopped_for", stopped)
		sv.stop(ctrlZWhy) // pausedAt stays: the tree is frozen, and is killed
	case !sv.frozenAt.IsZero():
		sv.pausedAt = time.Time{}
		_ = sendOrder(sv.w, orderFreeze) // frozen now for the lock's sake
		sv.log.Info("fg: CMD stays frozen until the lock is proved ours again", "stopped_for", stopped)
	default:
		sv.pausedAt = time.Time{}
		sv.thaw()
		sv.log.Info("fg: in time, and the lock is still ours: CMD and all it started thawed (SIGCONT)", "stopped_for", stopped)
	}
}
