package lock

import "context"

// State is where a Lock stands, as Observe reports it.
type State int

const (
	// StateWaiting is in line, or not yet locked.
	StateWaiting State = iota
	// StateHeld is ours, and proved so.
	StateHeld
	// StateSuspended is a held lock whose connection was lost under the
	// at-most-one policy: the session may still live, and the lock with
	// it, but nothing proves it. The work must not act, and may resume at
	// StateHeld, which follows when the session reconnects in time and the
	// holder's znode is found still first in line.
	StateSuspended
	// StateLost is gone for good: the session expired, the holder's znode
	// was deleted, or another contender leads. Done is closed.
	StateLost
	// StateReleased is after Unlock. Done is closed.
	StateReleased
)

var stateNames = [...]string{"waiting", "held", "suspended", "lost", "released"}

// String names the state as the logs do.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return "unknown"
	}
	return stateNames[s]
}

// final reports whether no state follows s.
func (s State) final() bool { return s == StateLost || s == StateReleased }

// Observe returns a channel that carries the lock's state now, then every
// change, in order, none dropped: under at-most-one a connection blip is
// StateSuspended, then StateHeld again. It closes after StateLost or
// StateReleased, or when ctx is done. A holder that can pause its work
// (zklock freezes its command) follows it; one that cannot waits on Lost.
func (l *Lock) Observe(ctx context.Context) <-chan State { return l.h.states.Observe(ctx) }

// Done is closed when the lock is lost for good, or released.
func (l *Lock) Done() <-chan struct{} { return l.h.done }

// Err says how a lock that is Done ended: ErrLost when it was lost, nil
// when it was released; nil before Done.
func (l *Lock) Err() error {
	if l.h.states.Current() == StateLost {
		return ErrLost
	}
	return nil
}
