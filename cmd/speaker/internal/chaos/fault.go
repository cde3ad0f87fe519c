// Package chaos is the core of a seeded fault soak of the programs that
// recipes register (Recipe, Config.Recipe): real processes on a real
// ensemble, each behind fault proxies of its own, hit by random faults,
// one or two at a time, and a checker that reads what they wrote and
// tells, exactly, whether what the recipe promises held. The recipes'
// own soaks and checkers are in the packages beside it, one per recipe;
// package recipes registers them all.
package chaos

import (
	"fmt"
	"syscall"
	"time"
)

// Kind is a kind of fault.
type Kind uint8

// The faults a soak injects. Each is something real: a signal to a real
// process, a real TCP reset or black hole, a real ZooKeeper server killed,
// an operator's delete through a real session.
const (
	// Kill is SIGKILL of a speaker, restarted after a while.
	Kill Kind = iota
	// Term is SIGTERM of a speaker (a graceful exit), restarted after a while.
	Term
	// StopShort is SIGSTOP of a speaker for less than the session timeout.
	StopShort
	// StopLong is SIGSTOP of a speaker for longer than the session timeout.
	StopLong
	// Reset resets a speaker's connections (TCP RST); it reconnects at once.
	Reset
	// HoleShort black-holes a speaker's network for less than the session.
	HoleShort
	// HoleLong black-holes a speaker's network for longer than the session.
	HoleLong
	// LostCreate restarts a speaker with a trap that swallows the reply to
	// its first create: it must find the znode it made, not make another.
	LostCreate
	// ServerKill kills one ZooKeeper server (SIGKILL), the ZooKeeper
	// leader now and then, and restarts it.
	ServerKill
	// QuorumLoss kills two servers of three for a moment.
	QuorumLoss
	// DeleteLeader is an operator deleting the leader's znode by hand.
	DeleteLeader
	// DeletePath is an operator deleting the whole election path.
	DeletePath
	// Storm resets a speaker's connections again and again, a few
	// milliseconds apart: reconnects that overtake each other.
	Storm
	// DataLoss is the total loss of ZooKeeper's data: every server killed,
	// its data wiped, all started afresh, then the recipe's restore
	// (Running.Restore). Only a recipe that can restore draws it.
	DataLoss
	numKinds
)

var kindNames = [numKinds]string{"kill", "term", "stop-short", "stop-long", "reset", "hole-short", "hole-long",
	"lost-create", "server-kill", "quorum-loss", "delete-leader", "delete-path", "storm", "data-loss"}

// String names the kind as the fault log and the summary print it.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// HitsAProcess says whether a fault of this kind targets one process (a
// signal, or its network), not ZooKeeper.
func (k Kind) HitsAProcess() bool {
	switch k {
	case ServerKill, QuorumLoss, DeleteLeader, DeletePath, DataLoss:
		return false
	}
	return true
}

// Kinds lists every kind, in the summary's order.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// ParseKind reads a kind's name, or a recipe's name for one
// (Words.DeleteKind is delete-leader).
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	if k, ok := aliases()[s]; ok {
		return k, nil
	}
	return 0, fmt.Errorf("chaos: unknown fault kind %q", s)
}

// Fault is one fault as it happened.
type Fault struct {
	Kind Kind
	// Target is whom it hit: a speaker ("s2"), a ZooKeeper server ("zk3"),
	// or an election path.
	Target string
	// Start is when it began. End is when it was over: the process
	// continued or was running again, the network healed, the server
	// served again. For an instant fault (a delete, a reset) End is Start.
	Start, End time.Time
	// Leader says whether the target led when the fault began: the
	// process that wrote the out file's last line, or whose znode is the
	// lowest (Recipe.ByZnode). Never in a recipe whose processes stand
	// side by side (no Words.Lead).
	Leader bool
	// Note says more, in words: "restarted as pid 4711", "for 1.2s".
	Note string
}

// Exit is how a speaker process ended after a SIGTERM: a graceful exit
// must be status 0 within ExitLimit.
type Exit struct {
	Name   string
	Status int            // the exit status, when it exited on its own
	Signal syscall.Signal // the signal that ended it, 0 when it exited on its own
	Killed bool           // it did not exit within the limit, and the soak killed it
	Before bool           // it had ended on its own before the signal: nothing to judge
	Took   time.Duration
}

// bad reports whether the exit was not a graceful one: good says which
// statuses are (nil: 0 only).
func (e Exit) bad(good func(name string, status int) bool) bool {
	if good == nil {
		good = func(_ string, status int) bool { return status == 0 }
	}
	if e.Before {
		return false
	}
	return e.Killed || e.Signal != 0 || !good(e.Name, e.Status) || e.Took > ExitLimit
}

// describe says in words how the process ended.
func (e Exit) describe() string {
	took := e.Took.Round(time.Millisecond)
	switch {
	case e.Killed:
		return fmt.Sprintf("did not exit within %s and was killed", took)
	case e.Signal != 0:
		return fmt.Sprintf("was ended by signal %d (%v) after %s, without exiting on its own (no handler for it yet?)", int(e.Signal), e.Signal, took)
	default:
		return fmt.Sprintf("exited with status %d after %s (want a graceful exit within %s)", e.Status, took, ExitLimit)
	}
}

// ExitLimit is how long a speaker may take to exit after SIGTERM.
const ExitLimit = 5 * time.Second
