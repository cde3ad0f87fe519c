// Package speaker holds the Speaker of the articles' demo: a ticker that
// appends "<time> <name> <counter>" lines to a file, but only while the
// election says it leads.
//
// The Speaker never talks to ZooKeeper. A monitor (nodemonitor or
// znodemonitor) decides, and calls StartSpeaking and StopSpeaking.
package speaker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// TimeLayout is the first field of every line: RFC 3339 in UTC with exactly
// nine fractional digits, so lines sort and align as text.
const TimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// ErrClosed is returned by Write once Close was called.
var ErrClosed = errors.New("speaker: closed")

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
	term    uint64 // counts StartSpeaking calls, so a late confirm cannot write into a new term
	counter uint64 // the last counter written; each line is counter+1
	confirm func(context.Context) (int64, error)
	fence   bool
	failing bool // the last confirm failed; log only the first failure of a run
	closed  bool // after Close, StartSpeaking does nothing

	restart   chan struct{} // StartSpeaking asks the loop to restart its ticker
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
		restart:  make(chan struct{}, 1),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go s.loop()
	return s, nil
}

// ProcessName returns the name written on every line; it defaults to the pid.
func (s *Speaker) ProcessName() string { return s.name }

// SetConfirm makes the Speaker call confirm before every line, and stay
// silent when it fails: the at-most-one policy. confirm proves, with a round
// trip to ZooKeeper, that we still lead, and returns the leader's epoch,
// which each line then carries as a fourth field, "epoch=<n>". A monitor
// under at-most-one hands over its Confirm this way before it starts.
func (s *Speaker) SetConfirm(confirm func(ctx context.Context) (epoch int64, err error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.confirm = confirm
}

// StartSpeaking makes the Speaker active and writes the first line at once,
// so that a handover shows in the file within milliseconds, not an interval
// later. Calling it while active does nothing.
func (s *Speaker) StartSpeaking() {
	s.mu.Lock()
	if s.active || s.closed {
		s.mu.Unlock()
		return
	}
	s.active = true
	s.term++
	term := s.term
	s.log.Info("started speaking", "next_counter", s.counter+1)
	s.mu.Unlock()
	s.speak(term)
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

// Close silences the Speaker for good, stops the ticker and closes the file.
// It is safe to call more than once, and returns after the last write. A
// StartSpeaking that comes later, from a monitor still winning an election
// as the process shuts down, writes nothing.
func (s *Speaker) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock() // waits for a write in progress
		if s.active {
			s.log.Info("stopped speaking", "last_counter", s.counter)
		}
		s.active, s.closed = false, true
		s.mu.Unlock()
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
	for {
		select {
		case <-s.quit:
			return
		case <-s.restart:
			ticker.Reset(s.interval)
		case <-ticker.C:
			s.mu.Lock()
			active, term := s.active, s.term
			s.mu.Unlock()
			if active {
				s.speak(term)
			}
		}
	}
}

// speak writes the next line of term, after confirming leadership when a
// ConfirmFunc is set. The confirm runs without the lock, so that
// StopSpeaking never waits on ZooKeeper; the write runs under it and only
// if the term is still the current one. The counter moves only when the
// whole line reached the file, so counters go up by exactly 1.
func (s *Speaker) speak(term uint64) {
	s.mu.Lock()
	confirm := s.confirm
	s.mu.Unlock()
	var epoch int64
	asked := time.Now()
	if confirm != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.confirmDeadline())
		e, err := confirm(ctx)
		cancel()
		s.mu.Lock()
		failing := s.failing
		s.failing = err != nil
		s.mu.Unlock()
		if err != nil {
			if !failing {
				s.log.Warn("cannot confirm that we still lead; not writing", "error", err)
			}
			return
		}
		if failing {
			s.log.Info("leadership confirmed again; writing")
		}
		epoch = e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active || s.term != term {
		return
	}
	if confirm != nil && time.Since(asked) > s.confirmDeadline() {
		// The answer is stale: the process was paused (SIGSTOP, a long GC)
		// after it asked, and leadership may have moved meanwhile. The
		// monotonic clock runs on while a process is frozen, so this
		// narrows the window to the moment between here and the write;
		// only --fence closes it. Err on the side of silence and ask again
		// next tick (one warning per run of stale answers).
		if !s.failing {
			s.log.Warn("confirmation too old to act on (were we paused?); not writing", "age", time.Since(asked).Round(time.Millisecond))
		}
		s.failing = true
		return
	}
	line := s.format(time.Now(), s.counter+1, epoch)
	err := s.out.Append(line, epoch, s.fence)
	if err != nil && !errors.Is(err, ErrNotSynced) {
		s.log.Error("did not write a line", "error", err)
		return
	}
	if err != nil {
		// The line is in the file, only not yet on disk: count it, or the
		// next line would repeat its number.
		s.log.Error("wrote a line but could not fsync it", "error", err)
	}
	s.counter++
}

// confirmDeadline is half the interval, at most a second: a confirm must
// answer well before the next line is due, or it proves nothing.
func (s *Speaker) confirmDeadline() time.Duration {
	return min(s.interval/2, time.Second)
}

// format builds "<time> <name> <counter>\n", with " epoch=<n>" before the
// newline when the leader's epoch is known.
func (s *Speaker) format(now time.Time, counter uint64, epoch int64) []byte {
	b := make([]byte, 0, 80)
	b = now.UTC().AppendFormat(b, TimeLayout)
	b = append(b, ' ')
	b = append(b, s.name...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, counter, 10)
	if epoch > 0 {
		b = append(b, " "+EpochField...)
		b = strconv.AppendInt(b, epoch, 10)
	}
	return append(b, '\n')
}

// Check reports whether path can be opened for appending, creating its
// directory, without writing anything: the command's input check.
func Check(path string) error {
	f, err := openAppend(path)
	if err != nil {
		return err
	}
	return f.Close()
}

func openAppend(path string) (*os.File, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("speaker: create directory of %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("speaker: open %s for append: %w", path, err)
	}
	return f, nil
}
