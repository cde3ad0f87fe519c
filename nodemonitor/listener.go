package nodemonitor

import (
	"context"
	"fmt"
)

// Listener is told when to speak: the articles' NodeMonitorListener. The
// monitors declare it because they are the ones that call it; speaker.Speaker
// satisfies it without knowing about it.
type Listener interface {
	// StartSpeaking is called when this process becomes the leader.
	StartSpeaking()
	// StopSpeaking is called when it may no longer act as leader. It must
	// return only once the listener has stopped.
	StopSpeaking()
	// ProcessName names the candidate; it is stored as its znode's data.
	ProcessName() string
}

// Confirmer is a Listener that can check with the monitor before each act.
// Under at-most-one, the Monitor hands it Monitor.Confirm before it starts;
// speaker.Speaker is one.
type Confirmer interface {
	SetConfirm(confirm func(ctx context.Context) (epoch int64, err error))
}

// State is a monitor's view of its own leadership: the three states that a
// reader of the first article asked for, and one for the end.
type State uint32

const (
	// StateInactive means not the leader: waiting in line, or not yet joined.
	StateInactive State = iota
	// StateActive means the leader, with a live session and znode.
	StateActive
	// StatePaused means the leader lost its connection: it does not know
	// whether it still leads until it reconnects or its session must be gone.
	StatePaused
	// StateClosed means Close was called.
	StateClosed
)

// String returns the state's name as the logs print it.
func (s State) String() string {
	switch s {
	case StateInactive:
		return "inactive"
	case StateActive:
		return "active"
	case StatePaused:
		return "paused"
	case StateClosed:
		return "closed"
	default:
		return "unknown"
	}
}

// Policy says what a paused leader does: the two kinds of application in the
// comment on the first article.
type Policy uint8

const (
	// AtMostOne stops speaking as soon as the connection drops: there may be
	// no leader for a while, but never two.
	AtMostOne Policy = iota
	// AtLeastOne keeps speaking while paused, betting that the session will
	// survive: there is always a leader, and for a short while maybe two.
	AtLeastOne
)

// String returns the policy as the --policy flag spells it.
func (p Policy) String() string {
	switch p {
	case AtMostOne:
		return "at-most-one"
	case AtLeastOne:
		return "at-least-one"
	default:
		return "unknown"
	}
}

// ParsePolicy reads a --policy value.
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "at-most-one":
		return AtMostOne, nil
	case "at-least-one":
		return AtLeastOne, nil
	}
	return 0, fmt.Errorf("%w: policy %q (want at-most-one or at-least-one)", ErrInvalid, s)
}

// WatchMode says what a follower of the sequential election watches.
type WatchMode uint8

const (
	// WatchPredecessor watches only the next candidate ahead: one
	// notification per change, no herd. This is the ZooKeeper recipe.
	WatchPredecessor WatchMode = iota
	// WatchChildren watches the whole list of candidates, as the first
	// article did: every change wakes every candidate, the herd effect.
	WatchChildren
)

// String returns the mode as the --watch flag spells it.
func (w WatchMode) String() string {
	switch w {
	case WatchPredecessor:
		return "predecessor"
	case WatchChildren:
		return "children"
	default:
		return "unknown"
	}
}

// ParseWatchMode reads a --watch value.
func ParseWatchMode(s string) (WatchMode, error) {
	switch s {
	case "predecessor":
		return WatchPredecessor, nil
	case "children":
		return WatchChildren, nil
	}
	return 0, fmt.Errorf("%w: watch %q (want predecessor or children)", ErrInvalid, s)
}
