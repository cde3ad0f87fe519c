package election

import (
	"context"
	"time"

	"github.com/go-zookeeper/zk"
)

// Recipe is the half of an election that differs between the articles'
// two monitors: how a candidate joins and decides who leads. The engine
// never calls it from two goroutines at once: its own loop calls it, or
// Close does, when it finds the loop waiting (see Candidate).
type Recipe interface {
	// Check joins the election if this session has no znode in it yet, and
	// decides whether we lead. Wake fires once when that may have changed.
	Check(ctx context.Context) (Decision, error)
	// Leave deletes our znode, so that a successor need not wait for the
	// session to end.
	Leave(ctx context.Context) error
}

// Decision is the outcome of one Recipe.Check.
type Decision struct {
	// Leader is true when our znode is the one that leads.
	Leader bool
	// Node is our znode's path.
	Node string
	// Wake fires when the decision may have changed.
	Wake <-chan zk.Event
	// Watch, when Wake is nil, sets that watch later. The engine calls it
	// right after it tells the listener to speak, so that a new leader's
	// first line does not wait for a watch on its own znode.
	Watch func(ctx context.Context) (<-chan zk.Event, error)
	// Proof is a Leader decision's own proof that we lead, when the
	// requests it was made from prove it (a sync or a create that
	// succeeded). The first line of the term uses it instead of asking
	// again: one round trip from the notification to the line.
	Proof Proof
	// Prepare asks the engine to tell a follower's listener, when Wake
	// fires, that it may be about to lead (see preparer). Only a recipe
	// that wakes one candidate per change sets it: a herd of followers
	// getting ready would fight over the same file lock.
	Prepare bool
}

// Proof is a confirmation that came with a decision: the leader's epoch,
// and when the request that proved the session alive was sent. A zero Sent
// means no proof.
type Proof struct {
	Epoch int64
	Sent  time.Time
}
