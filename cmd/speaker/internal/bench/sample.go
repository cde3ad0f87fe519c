package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// sample is the state of a case at one moment: what its contenders'
// sessions have exchanged, and the servers' last transaction.
type sample struct {
	recoverable.Traffic // summed over the contenders
	zxid                int64
}

// sample sums the traffic of cs, the bench's syncs left out, and reads
// the servers' last transaction. Call it when cs rest.
func (b *Bench) sample(ctx context.Context, cr *caseRun, cs []contender) (sample, error) {
	var t recoverable.Traffic
	for _, c := range cs {
		s := cr.traffic(c)
		t.Requests += s.Requests
		t.Writes += s.Writes
		t.Events += s.Events
	}
	zxid, err := b.zxid(ctx)
	return sample{Traffic: t, zxid: zxid}, err
}

// leaving is the leader's traffic as it leaves: before, when it has left
// (a resigner stands again at once: its rejoin is its own business, not the
// failover's path), and once all have come to rest, a resigner's rejoin
// included.
type leaving struct{ left, resigned, gone recoverable.Traffic }

// count adds one failover's figures: its times from start, the successor's
// path and everyone's counts from before to after, the leaver's own
// included.
func (cr *caseRun) count(start time.Time, line firstLine, before, after sample, l leaving) {
	// leaving is the leaver's part of the path; whole, all it sent, a
	// resigner's rejoin included.
	whole := delta(l.left, l.gone)
	leaving, ended := whole, l.gone
	if cr.Resign {
		leaving, ended = delta(l.left, l.resigned), l.resigned
	}
	cr.latencies = append(cr.latencies, line.at.Sub(start))
	if wrote := ended.WroteAt; wrote.After(start) {
		cr.leftAfter = append(cr.leftAfter, wrote.Sub(start))
	}
	cr.notifiedAfter = append(cr.notifiedAfter, line.decided.EventAt.Sub(start))
	cr.answeredAfter = append(cr.answeredAfter, line.decided.AnsweredAt.Sub(start))
	cr.pathRequests += leaving.Requests + line.decided.SinceEvent
	cr.pathWrites += leaving.Writes + line.decided.WritesSinceEvent
	cr.roundTrips += line.decided.RoundTripsSinceEvent
	// The leaver's own count too: a leader that watches its own znode
	// is notified of its own delete, one more notification that the
	// server sends and a client reads as the successor takes over.
	cr.notified += after.Events - before.Events + whole.Events
	cr.requests += after.Requests - before.Requests + whole.Requests
	cr.writes += after.zxid - before.zxid
}

// delta is what happened between two samples of one session.
func delta(t0, t1 recoverable.Traffic) recoverable.Traffic {
	return recoverable.Traffic{Requests: t1.Requests - t0.Requests, Writes: t1.Writes - t0.Writes, Events: t1.Events - t0.Events}
}

// zxid is the newest transaction id among the servers that answer srvr: in
// an ensemble, every committed write reaches it.
func (b *Bench) zxid(ctx context.Context) (int64, error) {
	newest, answered := int64(0), false
	for _, addr := range b.servers {
		info := fourletter.Srvr(ctx, addr)
		if info.Mode == "down" {
			continue // an ensemble may have a server down; ask the others
		}
		answered = true
		newest = max(newest, info.Zxid)
	}
	if !answered {
		return 0, fmt.Errorf("no server answered srvr at %s", strings.Join(b.servers, ","))
	}
	return newest, nil
}
