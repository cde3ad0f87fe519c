package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
// zklock itself stops (SIGSTOP, a long pause, a crash), the moments stop
// coming, and the watchdog kills CMD in time, which zklock, frozen, could
// not. The chapter's lock has no such guard: its holder's work runs on
// whatever happens to its process.

// watchdogEnv switches a zklock process into the watchdog; its value is
// the grace period in nanoseconds.
const watchdogEnv = "ZKLOCK_WATCHDOG_GRACE_NS"

// deadlineSize is one message on the pipe: a deadline in Unix nanoseconds,
// or one of the orders below, which no deadline can be.
const deadlineSize = 8

// Orders to the watchdog, sent in place of a deadline.
const (
	orderFreeze = 1 // SIGSTOP CMD: the lock is suspended, unproved
	orderThaw   = 2 // SIGCONT CMD: the lock is proved ours again
	orderKill   = 3 // SIGKILL CMD now: the lock is lost while CMD is frozen
)

// runWatchdog runs CMD (os.Args[1:]) in a process group of its own and
// exits with its status. Deadlines come on file descriptor 3.
func runWatchdog(graceNS string) int {
	grace, err := strconv.ParseInt(graceNS, 10, 64)
	if err != nil || len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "zklock: watchdog: bad setup")
		return 2
	}
	// zklock orchestrates: a Ctrl-C reaches both, and zklock decides.
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP)
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = withoutEnv(os.Environ(), watchdogEnv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "zklock: %v\n", err)
		return 127
	}
	exited := make(chan int, 1)
	go func() { exited <- exitStatus(cmd.Wait()) }()
	deadlines := readDeadlines(os.NewFile(3, "deadlines"))
	kill := func(sig syscall.Signal) { _ = syscall.Kill(-cmd.Process.Pid, sig) }

	var deadline time.Time // zero until the first message: zklock sends one before starting us
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	stopping, frozen := false, false
	for {
		select {
		case status := <-exited:
			return status
		case d, ok := <-deadlines:
			if !ok { // zklock asks us to stop CMD, or is gone
				deadlines = nil
				if !stopping {
					stopping = true
					kill(syscall.SIGTERM)
					resetTimer(timer, until(earliest(deadline, time.Now().Add(time.Duration(grace)))))
				}
				continue
			}
			switch {
			case stopping:
			case d.UnixNano() == orderFreeze:
				frozen = true
				kill(syscall.SIGSTOP)
			case d.UnixNano() == orderThaw:
				frozen = false
				kill(syscall.SIGCONT)
			case d.UnixNano() == orderKill:
				stopping = true
				kill(syscall.SIGKILL)
			default:
				deadline = d
				resetTimer(timer, until(deadline))
			}
		case <-terms:
			if !stopping {
				stopping = true
				kill(syscall.SIGTERM)
				resetTimer(timer, until(earliest(deadline, time.Now().Add(time.Duration(grace)))))
			}
		case <-timer.C:
			// Past the grace, or past the moment the session may expire
			// and another holder start: no more waiting.
			switch {
			case stopping:
			case frozen:
				fmt.Fprintln(os.Stderr, "zklock: watchdog: the lock was not proved ours again before CMD's deadline; killed the frozen CMD before its session can expire and another holder start")
			default:
				fmt.Fprintln(os.Stderr, "zklock: watchdog: zklock stopped renewing (frozen?); killed CMD before its session can expire and another holder start")
			}
			stopping = true
			kill(syscall.SIGKILL)
		}
	}
}

// readDeadlines delivers each deadline from r, and closes the channel at
// EOF or on any error.
func readDeadlines(r io.ReadCloser) <-chan time.Time {
	out := make(chan time.Time)
	go func() {
		defer close(out)
		defer r.Close()
		var buf [deadlineSize]byte
		for {
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return
			}
			out <- time.Unix(0, int64(binary.BigEndian.Uint64(buf[:])))
		}
	}()
	return out
}

// sendOrder writes one order to the watchdog.
func sendOrder(w io.Writer, order int64) error { return sendDeadline(w, time.Unix(0, order)) }

// sendDeadline writes one deadline to the watchdog.
func sendDeadline(w io.Writer, d time.Time) error {
	var buf [deadlineSize]byte
	binary.BigEndian.PutUint64(buf[:], uint64(d.UnixNano()))
	_, err := w.Write(buf[:])
	return err
}

func until(t time.Time) time.Duration { return max(time.Until(t), 0) }

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

func earliest(a, b time.Time) time.Time {
	if !a.IsZero() && a.Before(b) {
		return a
	}
	return b
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
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
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
