package speaker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// The fence (WithFence): before each line, the writer takes an exclusive
// lock on the file, reads the last epoch in it, and writes only if its own
// is not older, all under that one lock. A successor can take the lock and
// read the tail before it knows that it leads: while its listing is on the
// way to ZooKeeper and back, it has nothing else to do, and the check
// stays as good as long as the lock is never let go in between (prepare).

// fence takes the file lock, waiting at most wait, and returns the last
// epoch in the file, read under it; or, when prepare holds it already, the
// epoch read then. The caller writes its line and unlocks.
func (l *lineFile) fence(wait time.Duration) (int64, error) {
	if l.held {
		l.held = false
		return l.heldLast, nil
	}
	if err := l.lock(wait); err != nil {
		return 0, err
	}
	last, err := lastEpoch(l.f)
	if err != nil {
		l.unlock()
		return 0, err
	}
	return last, nil
}

// prepare takes the file lock and reads the last epoch now, and holds both
// for the next line (fence). It does not wait: a lock that another writer
// holds is left to the line's own fence. It reports whether it holds it.
func (l *lineFile) prepare() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.held {
		return l.held
	}
	last, err := l.fence(0) // lock(0) tries once
	if err != nil {
		return false
	}
	l.held, l.heldLast = true, last
	return true
}

// unprepare lets go of a lock that prepare took and no line used, so that
// the leader, whoever it is, can write.
func (l *lineFile) unprepare() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil && l.held {
		l.unlock()
	}
	l.held = false
}

// unlock releases the file lock. Closing the file releases it too.
func (l *lineFile) unlock() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing the file unlocks too
}

// lock takes the exclusive file lock, trying for at most wait.
func (l *lineFile) lock(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("speaker: lock %s: %w", l.f.Name(), err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("speaker: %s stayed locked by another writer for %v (frozen in the middle of a line?): %w", l.f.Name(), wait, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// lastEpoch returns the epoch of the last line in f that has one, looking
// back at most 64 KiB, or 0. It runs under the file lock before every fenced
// line, on the failover's path, so it reads the tail in growing windows and
// parses from the newest line back: almost always, the last line decides.
func lastEpoch(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	for window := int64(1 << 10); ; window *= 8 {
		start := max(size-window, 0)
		buf := make([]byte, size-start)
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("speaker: read %s: %w", f.Name(), err)
		}
		// Lines are whole (one write each), so every line parses but the
		// window's first, which may be cut unless the window starts the file.
		rest := bytes.TrimRight(buf, "\n")
		for len(rest) > 0 {
			i := bytes.LastIndexByte(rest, '\n')
			if i < 0 && start > 0 {
				break // cut by the window
			}
			if l, err := ParseLine(string(rest[i+1:])); err == nil && l.Epoch > 0 {
				return l.Epoch, nil
			}
			rest = rest[:max(i, 0)]
		}
		if start == 0 || window >= 64<<10 {
			return 0, nil
		}
	}
}
