// Package speaker holds the Speaker of the articles' demo: a ticker that
// appends "<time> <name> <counter> epoch=<n>" lines to a file, but only
// while the election says it leads.
//
// The Speaker never talks to ZooKeeper. A monitor (nodemonitor or
// znodemonitor) decides, and calls StartSpeaking and StopSpeaking; under
// at-most-one it hands StartSpeaking the confirm that the Speaker calls
// before every line.
package speaker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Speaker appends one line per tick to its file while it is active. It
// satisfies the monitors' Listener interface, the articles'
// NodeMonitorListener.
type Speaker struct {
	name     string
	interval time.Duration
	out      *lineFile
	log      *slog.Logger

	mu      sync.Mutex // held across each write, so StopSpeaking waits for one in progress
	active  bool
	term    uint64                                          // counts StartSpeaking calls, so a late confirm cannot write into a new term
	counter uint64                                          // the last counter written; each line is counter+1
	confirm func(context.Context) (int64, time.Time, error) // this term's, nil under at-least-one
	fence   bool
	fenced  uint64        // the term a newer epoch in the file fenced off; it writes no more
	refused uint64        // lines the fence refused
	epoch   int64         // the epoch on the last line written
	failing bool          // the last confirm failed; log only the first failure of a run
	closed  bool          // after Close, StartSpeaking does nothing
	written chan struct{} // closed and replaced after each line, for Wait
	lastAt  time.Time     // when the last line was in the file (and fsynced, with fsync on)

	restart   chan struct{} // StartSpeaking asks the loop to restart its ticker
	ready     bool          // Prepare was called, Unprepare not since (under mu)
	prepare   chan struct{} // Prepare and Unprepare ask the loop to look at ready
	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New opens path for appending (creating it and its directory) and starts
// the Speaker's ticker. It is silent until StartSpeaking.
func New(path string, opts ...Option) (*Speaker, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	out, err := openLineFile(path, o.fsync)
	if err != nil {
		return nil, err
	}
	s := &Speaker{
		name:     o.name,
		interval: o.interval,
		out:      out,
		log:      o.logger,
		fence:    o.fence,
		written:  make(chan struct{}),
		restart:  make(chan struct{}, 1),
		prepare:  make(chan struct{}, 1),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go s.loop()
	return s, nil
}

// ProcessName returns the name written on every line; it defaults to the pid.
func (s *Speaker) ProcessName() string { return s.name }

// StartSpeaking makes the Speaker active and asks its goroutine to write
// the first line at once, so that a handover shows in the file within
// milliseconds, not an interval later. It returns without waiting for that
// line: the monitor that calls it must not wait on the confirm's round trip.
//
// confirm, when not nil, is called before every line of this term: it
// proves, with a round trip to ZooKeeper, that we still lead, and returns
// the leader's epoch, which each line then carries as "epoch=<n>", and when
// the proving request was sent. A line is written only if that moment is
// less than the confirm deadline ago; otherwise, or when confirm fails, the
// Speaker stays silent (the at-most-one policy). Calling StartSpeaking
// while active does nothing.
func (s *Speaker) StartSpeaking(confirm func(ctx context.Context) (epoch int64, sent time.Time, err error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active || s.closed {
		return
	}
	s.active = true
	s.term++
	s.confirm = confirm
	s.log.Info("started speaking", "next_counter", s.counter+1)
	select {
	case s.restart <- struct{}{}:
	default:
	}
}

// StopSpeaking makes the Speaker silent. It is synchronous: once it returns,
// no line is being written and none will be until the next StartSpeaking.
func (s *Speaker) StopSpeaking() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active {
		return
	}
	s.active = false
	s.log.Info("stopped speaking", "last_counter", s.counter)
}

// Speaking reports whether the Speaker is active.
func (s *Speaker) Speaking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// Counter returns the counter of the last line written, 0 before the first.
func (s *Speaker) Counter() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counter
}

// Stats is what a Speaker has done, for an operator's dashboard.
type Stats struct {
	// Written is how many lines it has written; Refused how many the
	// fence refused, because a newer leader's epoch was in the file.
	Written, Refused uint64
	// Epoch is the epoch on its last line, 0 before the first (or with no
	// confirm, under at-least-one).
	Epoch int64
}

// Stats returns what the Speaker has done so far.
func (s *Speaker) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Written: s.counter, Refused: s.refused, Epoch: s.epoch}
}

// LastWritten returns the counter of the last line and the moment it was
// in the file, fsynced when fsync is on: when a reader of the file could
// first see it. `speaker bench` ends a failover there.
func (s *Speaker) LastWritten() (counter uint64, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counter, s.lastAt
}

// Acted returns a channel closed once the next line is in the file. The
// election engine waits for it before it sets a new leader's watch on its
// own znode, so that the watch's round trip does not compete with the
// first line of a failover.
func (s *Speaker) Acted() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

// Wait blocks until the line numbered counter has been written (Counter()
// reaches it), or ctx is done.
func (s *Speaker) Wait(ctx context.Context, counter uint64) error {
	for {
		s.mu.Lock()
		reached, written := s.counter >= counter, s.written
		s.mu.Unlock()
		if reached {
			return nil
		}
		select {
		case <-written:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Retire silences the Speaker for good, and returns after the last write: a
// StartSpeaking that comes later, from a monitor still winning an election
// as the process shuts down, writes nothing. It is the part of Close that a
// leaving leader must wait for before it deletes its znode; the rest of
// Close can follow the delete, off the successor's path.
func (s *Speaker) Retire() {
	s.mu.Lock() // waits for a write in progress
	defer s.mu.Unlock()
	if s.active {
		s.log.Info("stopped speaking", "last_counter", s.counter)
	}
	s.active, s.closed = false, true
}

// Close retires the Speaker (see Retire), stops its ticker and closes the
// file. It is safe to call more than once.
func (s *Speaker) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.Retire()
		close(s.quit)
		<-s.done
		s.mu.Lock()
		defer s.mu.Unlock()
		s.active = false
		err = s.out.Close()
	})
	return err
}

func (s *Speaker) loop() {
	defer close(s.done)
	ticker := time.NewTicker(s.interval)
	defer ticker.Stop()
	var prepared <-chan time.Time // ends a prepared lock that no line used
	for {
		select {
		case <-s.quit:
			return
		case <-s.prepare:
			prepared = s.getReady(prepared)
			continue
		case <-prepared:
			prepared = nil
			s.setReady(false)
			continue
		case <-s.restart:
			ticker.Reset(s.interval)
		case <-ticker.C:
		}
		s.mu.Lock()
		active, term := s.active, s.term
		s.mu.Unlock()
		if active {
			s.speak(term)
		}
	}
}

// speak writes the next line of term, after confirming leadership when the
// term has a confirm. The confirm runs without the lock, so that
// StopSpeaking never waits on ZooKeeper; the write runs under it and only
// if the term is still the current one. The counter moves only when the
// whole line reached the file, so counters go up by exactly 1.
func (s *Speaker) speak(term uint64) {
	s.mu.Lock()
	confirm, fenced := s.confirm, s.fenced == term
	s.mu.Unlock()
	if fenced {
		return
	}
	var (
		epoch int64
		sent  time.Time // when the proof's request left; its age is measured from then
	)
	if confirm != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.confirmDeadline())
		e, at, err := confirm(ctx)
		cancel()
		s.mu.Lock()
		failing, current := s.failing, s.active && s.term == term
		s.failing = err != nil
		s.mu.Unlock()
		if err != nil {
			// A term that ended while we asked (the monitor stopped us) has
			// nothing to report: its end was logged already.
			if !failing && current {
				s.log.Warn("cannot confirm that we still lead; not writing", "error", err)
			}
			return
		}
		if failing {
			s.log.Info("leadership confirmed again; writing")
		}
		epoch, sent = e, at
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active || s.term != term {
		return
	}
	if confirm != nil && time.Since(sent) > s.confirmDeadline() {
		// The answer is stale: the process was paused (SIGSTOP, a long GC)
		// after it asked, and leadership may have moved meanwhile. The
		// monotonic clock runs on while a process is frozen, so this
		// narrows the window to the moment between here and the write;
		// only --fence closes it. Err on the side of silence and ask again
		// next tick (one warning per run of stale answers).
		if !s.failing {
			s.log.Warn("confirmation too old to act on (were we paused?); not writing", "age", time.Since(sent).Round(time.Millisecond))
		}
		s.failing = true
		return
	}
	err := s.out.Append(Line{Time: time.Now(), Name: s.name, Counter: s.counter + 1, Epoch: epoch}, s.fence, s.confirmDeadline())
	switch {
	case errors.Is(err, errFenced):
		// A newer leader has written: whatever our monitor believes, this
		// term is over. Say so once, and write no more until a new term.
		s.fenced = term
		s.refused++
		s.log.Error("fenced: this speaker's epoch is older than one already in the file; not writing again until elected anew", "error", err)
		return
	case errors.Is(err, errNotSynced):
		// The line is in the file, only not yet on disk: count it, or the
		// next line would repeat its number.
		s.log.Error("wrote a line but could not fsync it", "error", err)
	case err != nil:
		s.log.Error("did not write a line", "error", err)
		return
	}
	s.counter++
	s.epoch = epoch
	s.lastAt = time.Now()
	close(s.written)
	s.written = make(chan struct{})
}

// confirmDeadline is half the interval, at most a second: a confirm must
// answer well before the next line is due, or it proves nothing.
func (s *Speaker) confirmDeadline() time.Duration {
	return min(s.interval/2, time.Second)
}
