package election

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// check asks the recipe where we stand and acts on the decision, holding
// the turn. It reports false when the loop must end: ctx is done, the
// session is closing, or ZooKeeper refuses us for good.
func (ls *loopState) check(ctx context.Context, prepare bool) bool {
	c := ls.c
	if prepare && ls.preparing != nil && c.State() == StateInactive {
		// The listener gets ready during the check's round trip.
		ls.preparing.Prepare()
		ls.prepared = true
	}
	// A Check retries through a lost connection, and meanwhile the loop
	// hears no event: bound it by the session's life, or a leader that
	// keeps speaking while paused could outlive its session in here.
	checkCtx, cancel := context.WithDeadline(ctx, c.sessionDeadline())
	d, err := c.recipe.Check(checkCtx)
	if err == nil {
		d, err = c.proveLead(checkCtx, d)
	}
	cancel()
	if err != nil {
		return ls.checkFailed(ctx, err)
	}
	ls.retries = newCheckRetries()
	c.joined = c.joined || d.Node != ""
	ls.wake, ls.ready = d.Wake, d.Prepare
	if !d.Leader {
		ls.unprepare()
	}
	ls.prepared = false // a leader's listener uses it, or its deadline ends it
	ls.first = firstAct{}
	// A new term's first act goes before the leader's own watch; grab the
	// channel before StartSpeaking, which may act at once.
	var acted <-chan struct{}
	if an, ok := c.listener.(actNotifier); ok && d.Leader && ls.wake == nil && d.Watch != nil && c.State() == StateInactive {
		acted = an.Acted()
	}
	c.apply(d)
	switch {
	case acted != nil:
		ls.first = firstAct{watch: d.Watch, acted: acted, late: time.After(watchLate)}
	case ls.wake == nil && d.Watch != nil:
		ls.wake, ls.retry = c.watchOwn(ctx, d.Watch, ls.retry)
	}
	return true
}

// checkFailed arms a retry after a failed check, with backoff. It reports
// false when the loop must end instead.
func (ls *loopState) checkFailed(ctx context.Context, err error) bool {
	c := ls.c
	if ctx.Err() != nil || c.session.Closing() {
		return false
	}
	if c.refusedForGood(err) {
		c.giveUp(err)
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("our session may have expired meanwhile: %w", err)
	}
	ls.unprepare() // it will not lead soon: nobody must wait for its lock
	delay := ls.retries.Backoff()
	ls.retries.UseRetry()
	c.log.Warn("election check failed; will try again", "error", err, "in", delay)
	if ls.retry != nil {
		ls.retry.Stop()
	}
	ls.retry = time.NewTimer(delay)
	return true
}
