package barrier

import (
	"fmt"
	"strconv"
)

// State is where a member of a double barrier stands, as Observe reports
// it.
type State int

const (
	// StateOutside is before Enter.
	StateOutside State = iota
	// StateEntering is in, waiting until the count is reached.
	StateEntering
	// StateInside is past the barrier: the count was reached at once.
	StateInside
	// StateLost is inside, but our member znode went (expiry, deletion):
	// the others no longer wait for us. Leave still waits for them.
	StateLost
	// StateLeaving is after our work, waiting until every member of the
	// round still alive has left.
	StateLeaving
	// StateLeft is out: after Leave (every member of the round left or
	// died, unless Leave failed), or after an Enter that failed. Done is
	// closed.
	StateLeft
)

var stateNames = [...]string{"outside", "entering", "inside", "lost", "leaving", "left"}

// String names the state as the logs do.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return "unknown"
	}
	return stateNames[s]
}

// CountError is a double barrier's count that cannot be used: below 1, or
// other than the one the barrier's znode records (every member of one
// barrier must give the same count).
type CountError struct {
	Field    string // "count"
	Path     string // the barrier, when the count disagrees with its record
	Count    int    // ours
	Recorded string // what the barrier's znode records, "" when none
}

// Error names the field, then what is wrong.
func (e *CountError) Error() string { return e.Field + ": " + e.Reason() }

// Reason says what is wrong without naming the field.
func (e *CountError) Reason() string {
	if e.Recorded == "" {
		return fmt.Sprintf("%d must be a whole number, 1 or more", e.Count)
	}
	return fmt.Sprintf("%d, but %s waits for %s members: every member must give the same count", e.Count, e.Path, e.Recorded)
}

// Unwrap makes the error ErrCount.
func (e *CountError) Unwrap() error { return ErrCount }

// recordOf is what the barrier's znode holds for count n.
func recordOf(n int) string { return "count=" + strconv.Itoa(n) }
