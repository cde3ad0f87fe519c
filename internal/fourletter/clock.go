package fourletter

import (
	"time"

	"zkspeaker/internal/monotonic"
)

// A server stamps lresp, the last time it answered a session, with its
// monotonic clock in milliseconds (Java's System.nanoTime), not the time of
// day: a number that means something only beside that clock's now. On
// Linux that clock is the kernel's CLOCK_MONOTONIC, the same for every
// process on the machine, so for a server on this machine, as in the
// course, now minus lresp is how long ago it heard from the session.
//
// For a server elsewhere, or on a system whose Java reads another clock,
// the difference is meaningless. It is then almost always far outside what
// a live session allows (it can be no older than its timeout, and a little
// more while the servers expire it), and Heard is left unknown.

// lrespSlack is how much older than its timeout an lresp may be and still
// be believed: the servers expire sessions once a tick, and a session may
// still be listed a few ticks after its time.
const lrespSlack = 30 * time.Second

// heardAt turns an lresp into a time of day: mono is this machine's
// monotonic clock and now its time of day, both read when cons answered.
// It returns the zero time when lresp cannot be on this machine's clock.
func heardAt(lresp, mono int64, now time.Time, timeout time.Duration) time.Time {
	if mono < 0 {
		return time.Time{}
	}
	age := time.Duration(mono-lresp) * time.Millisecond
	switch {
	case age < -time.Second || age > timeout+lrespSlack:
		return time.Time{}
	case age < 0: // the two clocks read a few milliseconds apart
		age = 0
	}
	return now.Add(-age)
}

// monotonicMillis reads CLOCK_MONOTONIC in milliseconds, or -1 where it
// cannot be read.
func monotonicMillis() int64 {
	now, ok := monotonic.Now()
	if !ok {
		return -1
	}
	return now.Milliseconds()
}
