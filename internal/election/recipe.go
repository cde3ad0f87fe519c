package election

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Recipe is the half of an election that differs between the articles'
// two monitors: how a candidate joins and decides who leads. The engine
// calls it from its one goroutine only.
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
}
