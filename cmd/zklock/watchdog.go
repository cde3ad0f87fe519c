package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// The watchdog is a second zklock process, between zklock and CMD. zklock
// sends it, over a pipe, the latest moment CMD may still run: just before
// the servers may expire our session, after which another process may
// hold the lock. zklock moves that moment on while it holds the lock. If
// zklock itself stops (SIGSTOP, Ctrl-Z, a long pause, a crash), the
// moments stop coming, and the watchdog kills CMD's whole tree in time,
// which zklock, frozen, could not. The chapter's lock has no such guard:
// its holder's work runs on whatever happens to its process.
//
// zklock starts the watchdog in a session of its own, so that nothing sent
// to zklock's process group (Ctrl-Z, Ctrl-C, `kill -- -PGID`, `timeout -s
// KILL`) reaches it or CMD: zklock decides what CMD gets.

// Environment that switches a zklock process into the watchdog: the grace
// period, and how often zklock renews the deadline, in nanoseconds.
const (
	watchdogEnv       = "ZKLOCK_WATCHDOG_GRACE_NS"
	watchdogPeriodEnv = "ZKLOCK_WATCHDOG_PERIOD_NS"
)

// watchdog is the watchdog's state; its loop alone changes it.
type watchdog struct {
	clock    clock
	grace    time.Duration
	period   time.Duration // zklock renews the deadline this often
	cmd      int           // CMD's pid
	deadline time.Duration // on the monotonic clock; 0 until the first message
	heard    time.Duration // when zklock last sent a deadline
	moved    time.Duration // when the deadline last moved on
	timer    *time.Timer
	killIn   time.Duration // from stop to SIGKILL
	frozen   int64         // orderFreeze or orderPause while the tree is stopped, else 0
	stopping bool
	told     bool // zklock asked for the end: it is not gone
	status   int  // CMD's, once it ended
}

// runWatchdog runs CMD (os.Args[1:]) and exits, once CMD's whole tree has
// ended, with CMD's status. Messages from zklock come on file descriptor 3.
func runWatchdog(graceNS string) int {
	grace, err1 := strconv.ParseInt(graceNS, 10, 64)
	period, err2 := strconv.ParseInt(os.Getenv(watchdogPeriodEnv), 10, 64)
	if err1 != nil || err2 != nil || period <= 0 || len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "zklock: watchdog: bad setup")
		return 2
	}
	// zklock orchestrates: should a Ctrl-C reach us, zklock decides.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTSTP)
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(os.Stderr, "zklock: watchdog: %v\n", err)
		return 1
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = withoutEnv(withoutEnv(os.Environ(), watchdogEnv), watchdogPeriodEnv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "zklock: %v\n", err)
		return 127
	}
	// cmd.Wait is never called: reap waits for CMD and its orphans alike.
	wd := &watchdog{clock: systemClock, grace: time.Duration(grace), period: time.Duration(period),
		cmd: cmd.Process.Pid, timer: time.NewTimer(time.Hour), status: -1}
	defer wd.timer.Stop()
	return wd.loop(readMessages(os.NewFile(3, "deadlines")), reap(), terms)
}

// loop follows zklock's messages, the tree's ends, SIGTERM and the
// deadline, until the last process of the tree has ended.
func (wd *watchdog) loop(messages <-chan int64, ended <-chan reaped, terms <-chan os.Signal) int {
	for {
		select {
		case r, ok := <-ended:
			if !ok {
				return wd.status
			}
			wd.ended(r)
		case m, ok := <-messages:
			if !ok {
				messages = nil
				wd.gone()
				continue
			}
			wd.message(m)
		case <-terms:
			wd.stop()
		case <-wd.timer.C:
			wd.expired()
		}
	}
}

// ended notes a process of the tree that ended; when it is CMD, and others
// still run, it says why the lock is still held.
func (wd *watchdog) ended(r reaped) {
	if r.pid != wd.cmd {
		return
	}
	wd.status = shellStatus(r.status)
	if left := descendants(os.Getpid()); len(left) > 0 && !wd.stopping {
		fmt.Fprintf(os.Stderr, "zklock: watchdog: CMD exited (status %d), but processes it started still run (%s): the lock stays held until the last of them ends\n",
			wd.status, describe(left))
	}
}

// message acts on one message from zklock.
func (wd *watchdog) message(m int64) {
	if wd.stopping {
		return
	}
	switch m {
	case orderFreeze, orderPause:
		wd.frozen = m
		signalTree(syscall.SIGSTOP)
	case orderThaw:
		wd.frozen = 0
		signalTree(syscall.SIGCONT)
	case orderKill:
		wd.told = true
		wd.kill()
	case orderStop:
		wd.told = true
		wd.stop()
	default:
		now := wd.clock.monotonic()
		// The same deadline sent again reads a few nanoseconds apart.
		if d := time.Duration(m); d > wd.deadline+time.Millisecond || d < wd.deadline-time.Millisecond {
			wd.moved = now
		}
		wd.deadline = time.Duration(m)
		wd.heard = now
		resetTimer(wd.timer, wd.clock.timeLeft(wd.deadline))
	}
}

// gone acts on the pipe's end: after orderStop or orderKill there is
// nothing more to do; without either, zklock died, and the tree is ended
// as if it had asked.
func (wd *watchdog) gone() {
	if wd.told || wd.stopping {
		return
	}
	wd.stop()
	fmt.Fprintf(os.Stderr, "zklock: watchdog: zklock is gone (killed?) at %s: CMD and every process it started asked to stop (SIGTERM), SIGKILL for what is left at %s\n",
		clockTime(wd.clock.wall()), clockTime(wd.clock.wall().Add(wd.killIn)))
}

// stop asks the tree to end: SIGTERM now (and SIGCONT, for a frozen tree
// cannot act on it), SIGKILL after the grace or at the deadline, whichever
// comes first.
func (wd *watchdog) stop() {
	if wd.stopping {
		return
	}
	wd.stopping = true
	signalTree(syscall.SIGTERM)
	if wd.frozen != 0 {
		wd.kill() // it must not act again: no thaw, no grace
		return
	}
	wd.killIn = wd.grace
	if wd.deadline != 0 {
		wd.killIn = min(wd.killIn, wd.clock.timeLeft(wd.deadline))
	}
	resetTimer(wd.timer, wd.killIn)
}

// kill ends the tree at once.
func (wd *watchdog) kill() {
	wd.stopping = true
	signalTree(syscall.SIGKILL)
	signalTree(syscall.SIGCONT) // a stopped process dies only once it runs
}

// expired acts on the timer: past the grace, or past the moment the
// session may expire and another holder start. It says which, in what it
// saw itself, and when it killed the tree.
func (wd *watchdog) expired() {
	if !wd.stopping {
		wd.kill()
		fmt.Fprintf(os.Stderr, "zklock: watchdog: killed CMD and every process it started at %s, before the session can expire and another holder start: %s\n",
			clockTime(wd.clock.wall()), wd.whyKilled())
		return
	}
	if left := descendants(os.Getpid()); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "zklock: watchdog: killed (SIGKILL) what was left of CMD's tree at %s, past the grace or the deadline: %s\n",
			clockTime(wd.clock.wall()), describe(left))
	}
	wd.kill()
}

// whyKilled says why CMD's deadline came without being moved on, by what
// the watchdog saw of zklock.
func (wd *watchdog) whyKilled() string {
	at := func(d time.Duration) string { return clockTime(wd.clock.at(d)) }
	switch {
	case wd.frozen == orderPause:
		return "zklock was stopped (Ctrl-Z) past CMD's deadline, " + at(wd.deadline)
	case wd.frozen == orderFreeze:
		return "the lock was not proved ours again by CMD's deadline, " + at(wd.deadline)
	case wd.clock.monotonic()-wd.heard < 3*wd.period:
		return "zklock ran on but could not move CMD's deadline on after " + at(wd.moved) +
			" (the servers stopped answering), and it came, " + at(wd.deadline)
	}
	return "zklock went silent at " + at(wd.heard) + " (stopped or frozen?) and CMD's deadline came, " + at(wd.deadline)
}

// resetTimer sets t to fire after d, dropping a tick of the old deadline
// that fired but was not read: read later, it would kill CMD on a deadline
// already moved on (go.mod's Go version keeps the old timer rules).
func resetTimer(t *time.Timer, d time.Duration) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(d)
}

// exitStatus is a finished command's status as a shell reports it: its
// exit code, or 128 plus the signal that ended it.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok {
		return shellStatus(ws)
	}
	return ee.ExitCode()
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
