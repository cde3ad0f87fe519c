// Package speaker holds the Speaker of the articles' demo: a ticker that
// appends "<time> <name> <counter>" lines to a file, but only while the
// election says it leads.
//
// The Speaker never talks to ZooKeeper. A monitor (nodemonitor or
// znodemonitor) decides, and calls StartSpeaking and StopSpeaking.
package speaker

import (
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
	counter uint64 // the last counter written; each line is counter+1

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
		restart:  make(chan struct{}, 1),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go s.loop()
	return s, nil
}

// ProcessName returns the name written on every line; it defaults to the pid.
func (s *Speaker) ProcessName() string { return s.name }

// StartSpeaking makes the Speaker active and writes the first line at once,
// so that a handover shows in the file within milliseconds, not an interval
// later. Calling it while active does nothing.
func (s *Speaker) StartSpeaking() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active {
		return
	}
	s.active = true
	s.log.Info("started speaking", "next_counter", s.counter+1)
	s.speakLocked()
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

// Close stops the ticker and closes the file. It is safe to call more than
// once, and returns after the last write.
func (s *Speaker) Close() error {
	var err error
	s.closeOnce.Do(func() {
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
			if s.active {
				s.speakLocked()
			}
			s.mu.Unlock()
		}
	}
}

// speakLocked writes the next line. The counter moves only when the whole
// line reached the file, so counters in the file go up by exactly 1.
func (s *Speaker) speakLocked() {
	line := s.format(time.Now(), s.counter+1)
	if err := s.out.Append(line); err != nil {
		s.log.Error("could not write a line", "error", err)
		return
	}
	s.counter++
}

// format builds "<time> <name> <counter>\n".
func (s *Speaker) format(now time.Time, counter uint64) []byte {
	b := make([]byte, 0, 64)
	b = now.UTC().AppendFormat(b, TimeLayout)
	b = append(b, ' ')
	b = append(b, s.name...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, counter, 10)
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
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("speaker: open %s for append: %w", path, err)
	}
	return f, nil
}
