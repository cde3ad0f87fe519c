package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"zkspeaker/recoverable"
)

// restWithin bounds the wait for contenders to come to rest: a contender
// that has not within it is stuck, or the machine is far too busy to
// measure anything.
const restWithin = 30 * time.Second

// rest waits until every contender in cs has done all that the last change
// made it do: a failover, a resignation's rejoining, a newcomer's joining.
// It syncs each session first. A server answers a sync only after every
// notification it sent that session before, so once the sync is answered,
// every notification the change caused has arrived, and is counted. Then
// it waits until each contender is idle (see contender.idle). Nothing is
// guessed from a quiet spell: each session's own state is read, so the
// counts are exact however slow the machine or the network. The syncs are
// the bench's own: the counts leave them out (see caseRun.traffic).
func (b *Bench) rest(ctx context.Context, cr *caseRun, cs []contender) error {
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.session().Conn().Sync("/") // one request, never retried: counted out exactly
		}()
	}
	wg.Wait()
	for _, c := range cs {
		cr.synced[c.session()]++
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("the bench's sync with a contender's session: %w", err)
	}
	return awaitIdle(ctx, cs)
}

// awaitIdle waits until every contender in cs is idle. It looks again only
// from the first that was not, then once more at them all.
func awaitIdle(ctx context.Context, cs []contender) error {
	ctx, cancel := context.WithTimeout(ctx, restWithin)
	defer cancel()
	from := 0
	for {
		busy := slices.IndexFunc(cs[from:], func(c contender) bool { return !c.idle(c.session().Traffic()) })
		switch {
		case busy < 0 && from == 0:
			return nil
		case busy < 0:
			from = 0
			continue
		}
		from += busy
		select {
		case <-ctx.Done():
			t := cs[from].session().Traffic()
			return fmt.Errorf("a contender did not come to rest within %v (%d requests in flight, %d watches set since its last notification): %w",
				restWithin, t.InFlight, t.WatchesSinceEvent, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// traffic is c's session's traffic, its requests without the bench's syncs.
func (cr *caseRun) traffic(c contender) recoverable.Traffic {
	t := c.session().Traffic()
	t.Requests -= cr.synced[c.session()]
	return t
}

// awaitClose waits until the servers' last transaction is past zxid: a
// closed leaver's session is gone once its close is, the one transaction
// that comes while every contender rests. go-zookeeper waits only a second
// for the close's answer; a later close would otherwise fall into the next
// failover's writes.
func (b *Bench) awaitClose(ctx context.Context, zxid int64) error {
	deadline := time.Now().Add(restWithin)
	for {
		now, err := b.zxid(ctx)
		if err != nil || now > zxid {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the leaver's session was not closed within %v: no transaction after 0x%x", restWithin, zxid)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// connect opens a contender's session, logging to log, and waits until it
// knows its server's mode (recoverable.ServerMode): on a standalone server
// its reads skip the sync from then on. One that never learns it, its srvr question
// timed out on a busy machine, would sync on every failover it takes part
// in while the others do not: its session is closed, and another opened.
func (b *Bench) connect(ctx context.Context, log *slog.Logger) (*recoverable.RecoverableZookeeper, error) {
	const attempts = 3
	for range attempts {
		rz, err := recoverable.Connect(b.servers, b.session, recoverable.WithLogger(log))
		if err != nil {
			return nil, err
		}
		if err := rz.WaitConnected(ctx); err != nil {
			rz.Close()
			return nil, err
		}
		if knowsMode(ctx, rz) {
			return rz, nil
		}
		rz.Close()
	}
	return nil, fmt.Errorf("%d sessions in a row did not learn their server's mode (srvr)", attempts)
}

// knowsMode waits, a few seconds at most (the question's own bound is
// shorter), until rz knows its server's mode.
func knowsMode(ctx context.Context, rz *recoverable.RecoverableZookeeper) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for rz.ServerMode() == "" {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Millisecond):
		}
	}
	return true
}
