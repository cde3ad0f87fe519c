package lock

import (
	"context"
	"sync"
	"time"
)

// acquisition is what the engine hands a new holder: the confirm that
// proves it holds the lock, nil under at-least-one.
type acquisition struct {
	confirm func(ctx context.Context) (int64, time.Time, error)
}

// holder is the Lock's election listener: where the speaker would start
// and stop speaking, it reports the lock acquired, then lost.
type holder struct {
	name     string
	acquired chan acquisition // one value, the first acquisition
	acted    chan struct{}    // closed when Lock has returned the lock to its caller
	lost     chan struct{}    // closed at the first stop after an acquisition

	mu       sync.Mutex
	held     bool
	lostOnce sync.Once
}

// StartSpeaking is the lock acquired. A later one (a paused holder that
// reconnected in time) does not give the lock back: once lost is closed,
// the work has been told to stop, and the caller must lock anew.
func (h *holder) StartSpeaking(confirm func(ctx context.Context) (int64, time.Time, error)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		return
	}
	h.held = true
	select {
	case h.acquired <- acquisition{confirm: confirm}:
	default:
	}
}

// Acted is closed once Lock has handed the lock to its caller. The engine
// sets the holder's watch on its own znode only then, so that the watch's
// round trip is not on the handover's path (issue 14); until then, the
// confirm has just proved the znode is there.
func (h *holder) Acted() <-chan struct{} { return h.acted }

// StopSpeaking is the lock lost, if it was held.
func (h *holder) StopSpeaking() {
	h.mu.Lock()
	held := h.held
	h.mu.Unlock()
	if held {
		h.lostOnce.Do(func() { close(h.lost) })
	}
}

// ProcessName names the contender in its znode.
func (h *holder) ProcessName() string { return h.name }
