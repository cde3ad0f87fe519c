package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// watchdogWhy is why CMD ended when the watchdog killed it, past the
// deadline zklock could not move on (it was frozen).
const watchdogWhy = "the watchdog stopped CMD: zklock stopped renewing its deadline (frozen?)"

// frozenTooLong is why CMD ended when it was frozen while the lock was
// suspended, and the watchdog killed it at the deadline: the lock was not
// proved ours again before the session could expire.
const frozenTooLong = "the lock was not proved ours again before the session could expire: the watchdog killed the frozen CMD"

// supervisor runs CMD under the watchdog while the lock is held: it moves
// CMD's deadline on, freezes CMD while the lock is suspended (at-most-one:
// the connection is lost, the lock unproved), thaws it once the lock is
// proved ours again, and stops it when the lock is lost or zklock is asked
// to stop.
type supervisor struct {
	log      *slog.Logger
	rz       *recoverable.RecoverableZookeeper
	w        *os.File         // the watchdog's pipe
	deadline func() time.Time // CMD's deadline, were it sent now
	last     time.Time        // the latest deadline sent
	done     chan int         // CMD's status, via the watchdog's
	frozenAt time.Time        // when CMD was frozen; zero while it runs
	why      string           // why CMD ended, as the last log line says
	renewing bool             // deadlines still go out
}

// supervise runs CMD under the watchdog; it returns CMD's status and why
// CMD ended.
func supervise(ctx context.Context, log *slog.Logger, rz *recoverable.RecoverableZookeeper, lk *lock.Lock, s settings) (int, string) {
	sv := &supervisor{log: log, rz: rz, why: "CMD exited", renewing: true}
	// margin keeps CMD's end ahead of the servers' expiry of our session,
	// for timer and scheduling delays and the drift between clocks.
	margin := rz.SessionTimeout() / 10
	sv.deadline = func() time.Time { return rz.AliveUntil().Add(-margin) }
	if election.BrokenForChaos {
		sv.deadline = func() time.Time { return time.Now().Add(time.Hour) } // no watchdog: see BrokenForChaos
	}
	if err := sv.start(lk, s); err != nil {
		log.Error("cannot start CMD", "error", err)
		return 1, err.Error()
	}
	defer sv.w.Close()
	return sv.loop(ctx, lk)
}

// start starts the watchdog, and CMD under it, with the first deadline
// already on the pipe, so that CMD is never unguarded.
func (sv *supervisor) start(lk *lock.Lock, s settings) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	sv.w, sv.last = w, sv.deadline()
	if err := sendDeadline(w, sv.last); err != nil {
		w.Close()
		return err
	}
	wd := exec.Command(exe, s.argv...)
	wd.Stdin, wd.Stdout, wd.Stderr = os.Stdin, os.Stdout, os.Stderr
	wd.ExtraFiles = []*os.File{r}
	wd.Env = append(os.Environ(), watchdogEnv+"="+strconv.FormatInt(int64(s.grace), 10),
		"ZKLOCK_EPOCH="+strconv.FormatInt(lk.Epoch(), 10), "ZKLOCK_PATH="+s.path)
	if err := wd.Start(); err != nil {
		w.Close()
		return err
	}
	sv.done = make(chan int, 1)
	go func() { sv.done <- exitStatus(wd.Wait()) }()
	return nil
}

// loop follows CMD, the clock and the lock until CMD has ended.
func (sv *supervisor) loop(ctx context.Context, lk *lock.Lock) (int, string) {
	tick := time.NewTicker(sv.rz.SessionTimeout() / 10)
	defer tick.Stop()
	observing, cancel := context.WithCancel(context.Background())
	defer cancel()
	states := lk.Observe(observing)
	for {
		select {
		case status := <-sv.done:
			switch {
			case sv.frozenPast():
				sv.why = watchdogWhy
			case sv.renewing && !sv.frozenAt.IsZero():
				sv.why = frozenTooLong
			}
			return status, sv.why
		case <-tick.C:
			if sv.renewing && sv.frozenAt.IsZero() {
				sv.last = sv.deadline()
				_ = sendDeadline(sv.w, sv.last)
			}
		case st, ok := <-states:
			if !ok {
				states = nil
				continue
			}
			sv.lockChanged(st)
		case <-ctx.Done():
			sv.log.Info("asked to stop: stopping CMD, then releasing the lock")
			ctx = context.Background()
			sv.stop("zklock was asked to stop")
		}
	}
}

// frozenPast reports, once zklock runs again, that it was stopped itself
// past the deadline the watchdog holds: the watchdog has killed CMD,
// whatever news comes first now, CMD's end or the lock's loss.
func (sv *supervisor) frozenPast() bool {
	return sv.renewing && sv.frozenAt.IsZero() && time.Now().After(sv.last)
}
