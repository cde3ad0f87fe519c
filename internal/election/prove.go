package election

import (
	"context"
	"fmt"
)

// proveLead makes a decision to lead under at-least-one rest on what the
// ZooKeeper leader has applied, before the listener hears of it.
//
// A server answers reads from its own copy, which may lag the ZooKeeper
// leader's: a follower that has not yet applied an operator's delete still
// lists our znode, first in line. A recipe syncs before the listing that
// decides, in the same round trip, and a decision made behind a sync that
// succeeded carries its Proof. One that does not (the sync failed and the
// listing went out on a new connection, to another server; a recipe that
// lists without a sync, as the first article's children watch does; a
// single-file leader's look at its znode after a reconnect) could be
// stale. Under at-most-one the first line's confirm catches that; nothing
// confirms an at-least-one leader's lines, so the engine asks once, here:
// a sync and a read of our znode, one round trip for each decision to lead
// that came without proof, none for one that came with it, and none per
// line. The answer becomes the decision's proof.
//
// A leader that stays leader on the same znode decides nothing new. A
// decision we cannot prove is not acted on: the error makes the loop
// check again, on a server that the sync has brought up to date.
func (c *Candidate) proveLead(ctx context.Context, d Decision) (Decision, error) {
	if c.policy != AtLeastOne || !d.Leader || !d.Proof.Sent.IsZero() || (c.State() == StateActive && d.Node == c.Node()) {
		return d, nil
	}
	epoch, sent, err := c.stillOurs(ctx, d.Node)
	if err != nil {
		return Decision{}, fmt.Errorf("the read that said we lead may be stale, and ZooKeeper's leader does not confirm it: %w", err)
	}
	d.Proof = Proof{Epoch: epoch, Sent: sent}
	return d, nil
}
