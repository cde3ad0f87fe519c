package main

import (
	"encoding/binary"
	"io"
	"time"

	"zkspeaker/internal/monotonic"
)

// zklock talks to the watchdog over a pipe, in messages of 8 bytes: a
// deadline, or one of the orders below, which no deadline can be.
//
// A deadline is a reading of CLOCK_MONOTONIC, the one clock that every
// process of the machine shares and that nobody can set. A wall-clock time
// would not do: NTP or an operator stepping the clock back by J between
// zklock's reading and the watchdog's would make every kill come J late,
// where the margin is only a tenth of the session. Nor would a duration:
// zklock frozen between computing it and writing it would send a deadline
// late by the freeze.
const messageSize = 8

// Orders to the watchdog, sent in place of a deadline.
const (
	orderFreeze = 1 // SIGSTOP the tree: the lock is suspended, unproved
	orderThaw   = 2 // SIGCONT the tree: the lock is proved ours again
	orderKill   = 3 // SIGKILL the tree now: the lock is lost while it is frozen
	orderPause  = 4 // SIGSTOP the tree: zklock stops itself (Ctrl-Z)
	orderStop   = 5 // end the tree: zklock is asked to, or the lock is lost
)

// The pipe's end without orderStop or orderKill first means that zklock
// died (SIGKILL, a crash): the watchdog ends the tree all the same, and
// says so, since zklock no longer can.

// monotonicNow is now on CLOCK_MONOTONIC. The clock is there on every
// Linux that has PR_SET_CHILD_SUBREAPER, which the watchdog needs anyway.
func monotonicNow() time.Duration {
	now, _ := monotonic.Now()
	return now
}

// clock is what the watchdog reads time from: the wall clock only to print
// moments a person can read, the monotonic one for every deadline.
type clock struct {
	wall      func() time.Time
	monotonic func() time.Duration
}

// systemClock is the machine's clocks.
var systemClock = clock{wall: time.Now, monotonic: monotonicNow}

// timeLeft is how long after now, on c, a deadline read from the pipe
// comes.
func (c clock) timeLeft(deadline time.Duration) time.Duration {
	return max(deadline-c.monotonic(), 0)
}

// at is the wall-clock moment at which a deadline comes, for a log line.
func (c clock) at(deadline time.Duration) time.Time {
	return c.wall().Add(deadline - c.monotonic())
}

// readMessages delivers each message from r, and closes the channel at EOF
// or on any error: zklock asks the watchdog to stop CMD, or is gone.
func readMessages(r io.ReadCloser) <-chan int64 {
	out := make(chan int64)
	go func() {
		defer close(out)
		defer r.Close()
		var buf [messageSize]byte
		for {
			if _, err := io.ReadFull(r, buf[:]); err != nil {
				return
			}
			out <- int64(binary.BigEndian.Uint64(buf[:]))
		}
	}()
	return out
}

// sendOrder writes one order to the watchdog.
func sendOrder(w io.Writer, order int64) error { return send(w, order) }

// sendDeadline writes one deadline to the watchdog: d, a time.Time that
// carries Go's monotonic reading (all of zklock's do), as a moment on
// CLOCK_MONOTONIC.
func sendDeadline(w io.Writer, d time.Time) error {
	return send(w, int64(monotonicNow()+time.Until(d)))
}

func send(w io.Writer, m int64) error {
	var buf [messageSize]byte
	binary.BigEndian.PutUint64(buf[:], uint64(m))
	_, err := w.Write(buf[:])
	return err
}
