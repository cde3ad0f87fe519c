package sequence

import (
	"zkspeaker/internal/reason"
)

// Mode is how a sequence's workers take IDs, chosen when it is created and
// recorded in its znode, so that every worker and the persistence leader
// agree on it.
type Mode string

// The two ways of taking IDs.
const (
	// ModeCAS is the article's compare-and-set: each write names the
	// version whose content its writer read, so the writes of one sequence
	// form a single chain, one round trip per link, whoever sends them. A
	// sequence with no mode recorded (made before there were two) is one.
	ModeCAS Mode = "cas"
	// ModeCounter takes each ID from the version of a counter znode: a
	// set with version -1 always succeeds, and the leader gives it the
	// next version in one total order, so workers never conflict. See
	// counter.go.
	ModeCounter Mode = "counter"
)

// ParseMode reads a mode's name: "cas" or "counter".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeCAS, ModeCounter:
		return m, nil
	}
	return "", reason.New(ErrInvalid, "mode", "%q: want cas or counter", s)
}

// or returns m, or ModeCAS for a sequence that recorded none.
func (m Mode) or() Mode {
	if m == "" {
		return ModeCAS
	}
	return m
}

// WithMode sets the mode of the sequences Create makes (ModeCAS by
// default, the article's way). Other functions read the mode from the
// sequence itself and ignore this.
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// suffix is how a reservation's file names the mode: nothing for
// ModeCAS, as files were written before there were two.
func (m Mode) suffix() string {
	if m.or() == ModeCAS {
		return ""
	}
	return " " + string(m)
}
