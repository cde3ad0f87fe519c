package speaker

import "time"

// Prepare tells a fencing Speaker that it may be about to lead: the
// election just learned that the candidate ahead of it is gone, and asks
// ZooKeeper whether we lead now. Meanwhile the Speaker's goroutine takes
// the file lock and reads the last epoch (see fence.go), so that the first
// line, if it comes, only writes: the fence's system calls leave the
// failover's path for the round trip's idle time. It returns at
// once. The lock is let go by Unprepare, or after the confirm deadline if
// no line used it; the check stays valid all that time, as the lock is
// never released in between. Without WithFence it does nothing.
func (s *Speaker) Prepare() { s.setReady(true) }

// Unprepare lets go of a lock that Prepare took, when the election decided
// that someone else leads: that leader's next line must not wait for it.
func (s *Speaker) Unprepare() { s.setReady(false) }

func (s *Speaker) setReady(on bool) {
	s.mu.Lock()
	s.ready = on
	fence := s.fence
	s.mu.Unlock()
	if !fence {
		return
	}
	select {
	case s.prepare <- struct{}{}:
	default: // the loop has yet to look; it reads ready then
	}
}

// getReady runs on the Speaker's goroutine and makes the file lock match
// ready: held while a term may be about to start, and not once one has
// (the active Speaker fences each line itself). It returns the timer that
// ends an unused lock.
func (s *Speaker) getReady(timer <-chan time.Time) <-chan time.Time {
	s.mu.Lock()
	want := s.ready && !s.active && !s.closed
	s.mu.Unlock()
	if !want {
		s.out.unprepare()
		return nil
	}
	if s.out.prepare() {
		return time.After(s.confirmDeadline())
	}
	return timer
}
