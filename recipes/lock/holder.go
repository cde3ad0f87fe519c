package lock

import (
	"context"
	"sync"
	"time"

	"zkspeaker/internal/broadcast"
)

// acquisition is what the engine hands a new holder: the confirm that
// proves it holds the lock, nil under at-least-one.
type acquisition struct {
	confirm func(ctx context.Context) (int64, time.Time, error)
}

// holder is the Lock's election listener: where the speaker would start
// and stop speaking, it reports the lock acquired, suspended, held again
// and lost.
type holder struct {
	name     string
	acquired chan acquisition // one value, the first acquisition
	acted    chan struct{}    // closed when Lock has returned the lock to its caller
	lost     chan struct{}    // closed at the first moment the lock is not proved held
	done     chan struct{}    // closed when the lock is lost for good
	// paused reports whether the engine has paused (a disconnect under
	// at-most-one, the session maybe alive), rather than stopped.
	paused func() bool
	states *broadcast.Broadcaster[State]

	mu    sync.Mutex
	state State
	// offered: the engine handed us the lock, and Lock has not yet handed
	// it on; a stop meanwhile loses it (held then refuses).
	offered  bool
	lostOnce sync.Once
	doneOnce sync.Once
}

func newHolder(name string, paused func() bool) *holder {
	return &holder{name: name, acquired: make(chan acquisition, 1), acted: make(chan struct{}),
		lost: make(chan struct{}), done: make(chan struct{}), paused: paused,
		states: broadcast.New(StateWaiting, State.final)}
}

// StartSpeaking is the lock acquired, or, after a suspension, proved ours
// again: the engine starts a paused leader again only when it found its
// znode, the same one, still first in line after the reconnect.
func (h *holder) StartSpeaking(confirm func(ctx context.Context) (int64, time.Time, error)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.state {
	case StateWaiting:
		select {
		case h.acquired <- acquisition{confirm: confirm}:
			h.offered = true
		default:
		}
	case StateSuspended:
		h.set(StateHeld)
	}
}

// held is Lock handing the lock to its caller, once its first confirm
// passed. It reports false when the lock was lost meanwhile: the engine
// stopped after it offered the lock and before Lock got here.
func (h *holder) held() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateWaiting {
		h.set(StateHeld)
		return true
	}
	return false
}

// StopSpeaking is the lock suspended, when the engine paused, or lost for
// good, when it stopped leading.
func (h *holder) StopSpeaking() {
	if h.paused() {
		h.suspend()
		return
	}
	h.lose()
}

// suspend marks a held lock unproved: the connection is gone, the session
// may still live, and the lock with it.
func (h *holder) suspend() {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.state == StateHeld:
		h.set(StateSuspended)
	case h.state == StateWaiting && h.offered:
		h.set(StateLost) // not yet handed on, and already unproved: Lock fails
	}
}

// resume is a suspended lock proved ours again by the connection's guard.
func (h *holder) resume() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateSuspended {
		h.set(StateHeld)
	}
}

// lose marks a held or suspended lock lost for good.
func (h *holder) lose() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == StateHeld || h.state == StateSuspended || h.state == StateWaiting && h.offered {
		h.set(StateLost)
	}
}

// release ends the holder for Unlock, whatever its state.
func (h *holder) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.state.final() {
		h.set(StateReleased)
	}
}

// set moves to s and tells the observers; the caller holds h.mu.
func (h *holder) set(s State) {
	h.state = s
	if s != StateHeld {
		h.lostOnce.Do(func() { close(h.lost) })
	}
	if s.final() {
		h.doneOnce.Do(func() { close(h.done) })
	}
	h.states.Publish(s)
}

// Acted is closed once Lock has handed the lock to its caller. The engine
// sets the holder's watch on its own znode only then, so that the watch's
// round trip is not on the handover's path; until then, the confirm has
// just proved the znode is there.
func (h *holder) Acted() <-chan struct{} { return h.acted }

// ProcessName names the contender in its znode.
func (h *holder) ProcessName() string { return h.name }
