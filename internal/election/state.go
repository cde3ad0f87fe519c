package election

import "fmt"

// State is a candidate's view of its own leadership: the three states that
// a reader of the first article asked for, and one for the end.
type State uint32

const (
	// StateInactive means not the leader: waiting in line, or not yet joined.
	StateInactive State = iota
	// StateActive means the leader, with a live session and znode.
	StateActive
	// StatePaused means the leader lost its connection: it does not know
	// whether it still leads until it reconnects or its session must be gone.
	StatePaused
	// StateClosed means Close was called; nothing follows.
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

// Status is a candidate at one moment: what Observe delivers.
type Status struct {
	// State is the candidate's state.
	State State
	// Node is the path of its znode, "" before it joined.
	Node string
	// Why says, in one word, what made the last change of state: elected,
	// resumed, paused, resigned, expired, deleted, lost (another leads) or
	// closed; "" for a change of znode alone.
	Why string
}

// Policy says what a paused leader does: the two kinds of application in the
// comment on the first article.
type Policy uint8

const (
	// AtMostOne stops speaking as soon as the connection drops, and confirms
	// before every act: there may be no leader for a while, but never two.
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
