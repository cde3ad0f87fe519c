package zktest

import (
	"context"
	"sync"
	"time"
)

// Listener records what a monitor tells it, for tests that run candidates in
// process. It satisfies the monitors' Listener.
type Listener struct {
	name     string
	mu       sync.Mutex
	speaking bool
	starts   []time.Time
	stops    []time.Time
	// prepares and unprepares count the engine's Prepare and Unprepare.
	prepares, unprepares int
}

// NewListener returns a silent Listener called name.
func NewListener(name string) *Listener { return &Listener{name: name} }

// StartSpeaking records the start of a term. It keeps no confirm: the
// tests that need one run a real speaker.Speaker.
func (l *Listener) StartSpeaking(func(context.Context) (int64, time.Time, error)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.speaking {
		l.speaking = true
		l.starts = append(l.starts, time.Now())
	}
}

// StopSpeaking records the end of a term.
func (l *Listener) StopSpeaking() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.speaking {
		l.speaking = false
		l.stops = append(l.stops, time.Now())
	}
}

// Prepare records that the engine told the listener it may be about to
// lead (a Speaker takes its file lock then).
func (l *Listener) Prepare() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.prepares++
}

// Unprepare records that the engine decided it does not lead after all.
func (l *Listener) Unprepare() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unprepares++
}

// Prepares returns how many times the listener was told to prepare and to
// unprepare.
func (l *Listener) Prepares() (prepared, unprepared int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.prepares, l.unprepares
}

// ProcessName returns the name given to NewListener.
func (l *Listener) ProcessName() string { return l.name }

// Speaking reports whether the listener is between a start and a stop.
func (l *Listener) Speaking() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.speaking
}

// Terms returns how many times the listener started speaking.
func (l *Listener) Terms() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.starts)
}

// LastStart returns when the latest term began, or the zero time.
func (l *Listener) LastStart() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.starts) == 0 {
		return time.Time{}
	}
	return l.starts[len(l.starts)-1]
}
