package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// Why CMD ended when the watchdog killed it at its deadline, by what
// zklock saw of its own: it stood still (a SIGSTOP, a pause), it was
// stopped by Ctrl-Z, or it ran on but could not move the deadline on,
// for the servers stopped answering.
const (
	watchdogWhy   = "the watchdog killed CMD and all it started at its deadline: zklock stood still past it (stopped or frozen?)"
	ctrlZWhy      = "the watchdog killed CMD and all it started at its deadline: zklock was stopped (Ctrl-Z) past it"
	unansweredWhy = "the servers stopped answering and CMD's deadline came: the watchdog killed CMD and all it started before the session could expire"
)

// frozenTooLong is why CMD ended when it was frozen while the lock was
// suspended, and the watchdog killed it at the deadline: the lock was not
// proved ours again before the session could expire.
const frozenTooLong = "the lock was not proved ours again before the session could expire: the watchdog killed the frozen CMD and all it started"

// revokedWhy is why CMD ended when `zklock revoke` asked a --revocable
// zklock to let go; zklock then exits with revokedStatus.
const revokedWhy = "zklock revoke asked for the lock"

// revokedStatus is a revoked zklock's exit status, whatever CMD's:
// sysexits.h's EX_TEMPFAIL, "try again later", for the lock was taken
// away, and a script that runs zklock in a loop may well try again.
const revokedStatus = 75

// supervisor runs CMD under the watchdog while the lock is held: it moves
// CMD's deadline on, freezes CMD's tree while the lock is suspended
// (at-most-one: the connection is lost, the lock unproved) or zklock is
// stopped by Ctrl-Z, thaws it once the lock is proved ours again, and
// stops it when the lock is lost or zklock is asked to stop.
type supervisor struct {
	log      *slog.Logger
	rz       *recoverable.RecoverableZookeeper
	w        *os.File         // the watchdog's pipe
	deadline func() time.Time // CMD's deadline, were it sent now
	period   time.Duration    // how often the deadline is renewed
	last     time.Time        // the latest deadline sent
	ran      time.Time        // when the loop last took a tick
	still    [2]time.Time     // the last span in which the loop stood still
	done     chan int         // CMD's status, via the watchdog's
	frozenAt time.Time        // when the lock's suspension froze CMD; zero while it runs
	pausedAt time.Time        // when Ctrl-Z froze CMD; zero while it runs
	why      string           // why CMD ended, as the last log line says
	renewing bool             // deadlines still go out
}

// supervise runs CMD under the watchdog; it returns CMD's status and why
// CMD ended.
func supervise(ctx context.Context, log *slog.Logger, rz *recoverable.RecoverableZookeeper, lk *lock.Lock, s settings) (int, string) {
	sv := &supervisor{log: log, rz: rz, why: "CMD exited", renewing: true, period: rz.SessionTimeout() / 10, ran: time.Now()}
	// margin keeps CMD's end ahead of the servers' expiry of our session,
	// for timer and scheduling delays and the drift between clocks.
	margin := rz.SessionTimeout() / 10
	sv.deadline = func() time.Time { return rz.AliveUntil().Add(-margin) }
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
		watchdogPeriodEnv+"="+strconv.FormatInt(int64(sv.period), 10),
		"ZKLOCK_EPOCH="+strconv.FormatInt(lk.Epoch(), 10), "ZKLOCK_PATH="+s.path)
	// Out of zklock's session and process group: what the terminal or
	// `kill -- -PGID` sends zklock must not reach the guard, nor CMD.
	wd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := wd.Start(); err != nil {
		w.Close()
		return err
	}
	sv.done = make(chan int, 1)
	go func() { sv.done <- exitStatus(wd.Wait()) }()
	return nil
}

// loop follows CMD, the clock, the lock and zklock's own job control
// until CMD's whole tree has ended.
func (sv *supervisor) loop(ctx context.Context, lk *lock.Lock) (int, string) {
	tick := time.NewTicker(sv.period)
	defer tick.Stop()
	observing, cancel := context.WithCancel(context.Background())
	defer cancel()
	states := lk.Observe(observing)
	revoked := lk.Revoked() // open for ever without --revocable
	jobs := make(chan os.Signal, 2)
	signal.Notify(jobs, syscall.SIGTSTP, syscall.SIGCONT)
	defer signal.Stop(jobs)
	for {
		// CMD's end first: one that ended on its own was stopped by no
		// request read after it (a revoke would make zklock exit 75, as if
		// the work were still to do).
		select {
		case status := <-sv.done:
			return sv.ended(status)
		default:
		}
		select {
		case status := <-sv.done:
			return sv.ended(status)
		case <-tick.C:
			sv.tick()
		case st, ok := <-states:
			if !ok {
				states = nil
				continue
			}
			sv.lockChanged(st)
		case sig := <-jobs:
			if sig == syscall.SIGTSTP {
				sv.pause()
			} else {
				sv.resume()
			}
		case <-revoked:
			revoked = nil
			if !sv.renewing {
				sv.log.Info("revocable, and asked to let go: CMD is stopping already, and the lock is released once it has", "because", sv.why)
				continue
			}
			sv.log.Info("revocable, and asked to let go: stopping CMD and all it started, then releasing the lock")
			sv.stop(revokedWhy)
		case <-ctx.Done():
			ctx = context.Background()
			if !sv.renewing {
				sv.log.Info("asked to stop: CMD is stopping already, and the lock is released once it has", "because", sv.why)
				continue
			}
			sv.log.Info("asked to stop: stopping CMD and all it started, then releasing the lock")
			sv.stop("zklock was asked to stop")
		}
	}
}

// ended is CMD's status, and why it ended.
func (sv *supervisor) ended(status int) (int, string) {
	if sv.renewing && time.Now().After(sv.last) {
		sv.why = sv.pastDeadline()
	}
	return status, sv.why
}

// tick moves CMD's deadline on, and notes a span in which the loop stood
// still: zklock stopped or frozen, as opposed to running but unanswered.
func (sv *supervisor) tick() {
	now := time.Now()
	if now.Sub(sv.ran) > 3*sv.period {
		sv.still = [2]time.Time{sv.ran, now}
	}
	sv.ran = now
	if sv.renewing && sv.frozenAt.IsZero() && sv.pausedAt.IsZero() {
		sv.last = sv.deadline()
		_ = sendDeadline(sv.w, sv.last)
	}
}

// pastDeadline is why CMD ended, or ends, once its deadline has passed:
// the watchdog kills CMD's tree at that moment, and what zklock saw of
// itself says why the deadline was not moved on.
func (sv *supervisor) pastDeadline() string {
	switch {
	case !sv.pausedAt.IsZero():
		return ctrlZWhy
	case !sv.frozenAt.IsZero():
		return frozenTooLong
	case sv.stoodStillAt(sv.last):
		return watchdogWhy
	}
	return unansweredWhy
}

// stoodStillAt reports whether the loop stood still across the moment t.
func (sv *supervisor) stoodStillAt(t time.Time) bool {
	if sv.ran.Before(t) && time.Since(sv.ran) > 3*sv.period {
		return true // and still does, as far as this loop has heard
	}
	return sv.still[0].Before(t) && sv.still[1].After(t)
}
