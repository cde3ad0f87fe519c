// Package monotonic reads the machine's monotonic clock as a number, which
// Go's time.Time keeps inside and does not show.
//
// On Linux it is the kernel's CLOCK_MONOTONIC: one clock for every process
// of the machine, which nobody can set and no NTP step moves. Two
// processes can therefore agree on a moment through it (zklock tells its
// watchdog CMD's deadline so), and a reading another program took of it
// (a ZooKeeper server's lresp, from Java's System.nanoTime) can be set
// beside ours.
package monotonic

import (
	"time"

	"golang.org/x/sys/unix"
)

// Now reads the monotonic clock, as a duration since an arbitrary moment
// (the machine's boot on Linux). ok is false where the clock cannot be
// read.
func Now() (now time.Duration, ok bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
