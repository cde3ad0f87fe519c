package bench

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/recoverable"
)

// caseRun is one case while it runs: its contenders and what its counted
// failovers measured.
type caseRun struct {
	Case
	path  string
	lines chan firstLine // each contender's first line as the leader
	live  []contender
	// synced counts the bench's syncs on each session (see rest).
	synced map[*recoverable.RecoverableZookeeper]int64

	latencies, leftAfter, notifiedAfter, answeredAfter []time.Duration
	pathRequests, pathWrites, roundTrips               int64
	notified, requests, writes                         int64
}

// failover closes the leader gracefully and waits for its successor's
// first line; count says whether the round is measured or a warm-up.
func (b *Bench) failover(ctx context.Context, cr *caseRun, count bool) error {
	i := slices.IndexFunc(cr.live, func(c contender) bool { return c.leads() })
	if i < 0 {
		return fmt.Errorf("nobody leads")
	}
	// Start from rest, the leader included: the last round's newcomer has
	// joined, any herd has had its say, the leader watches its own znode.
	if err := b.rest(ctx, cr, cr.live); err != nil {
		return err
	}
	leader := cr.live[i]
	cr.live = slices.Delete(cr.live, i, i+1)
	defer leader.close() // on every way out; close is idempotent
	before, err := b.sample(ctx, cr, cr.live)
	if err != nil {
		return err
	}
	var l leaving
	l.left = cr.traffic(leader)
	start := time.Now()
	leader.leave()
	l.resigned = cr.traffic(leader)
	line, err := cr.waitLine(ctx, start)
	if err != nil {
		return err
	}
	resting := cr.live
	if r, ok := leader.(*speakerCandidate); ok && cr.Resign {
		// Its rejoin is part of what a resignation costs everyone: count
		// it, whenever it comes.
		if err := r.join(ctx, cr.path); err != nil {
			return err
		}
		resting = append(slices.Clip(cr.live), leader)
	}
	if err := b.rest(ctx, cr, resting); err != nil {
		return err
	}
	after, err := b.sample(ctx, cr, cr.live)
	if err != nil {
		return err
	}
	l.gone = cr.traffic(leader)
	if count {
		cr.count(start, line, before, after, l)
	}
	leader.close() // a lock holder's session, now that the failover is counted
	if err := b.awaitClose(ctx, after.zxid); err != nil {
		return err
	}
	return b.spawn(ctx, cr, 1)
}

// waitLine waits for a first line written at or after since.
func (cr *caseRun) waitLine(ctx context.Context, since time.Time) (firstLine, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		select {
		case l := <-cr.lines:
			if l.at.Before(since) {
				continue // from before this failover
			}
			return l, l.err
		case <-ctx.Done():
			return firstLine{}, fmt.Errorf("no successor wrote its first line within 30s (a proof older than a second is not written; was the machine that busy?)")
		}
	}
}

// spawn starts n contenders at once, at most 64 connecting at a time, and
// waits until every one has joined.
func (b *Bench) spawn(ctx context.Context, cr *caseRun, n int) error {
	out := make([]contender, n)
	errs := make([]error, n)
	slots := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i], errs[i] = b.join(ctx, cr)
		}()
	}
	wg.Wait()
	for _, c := range out {
		if c != nil {
			cr.live = append(cr.live, c)
		}
	}
	if i := slices.IndexFunc(errs, func(err error) bool { return err != nil }); i >= 0 {
		return fmt.Errorf("%d candidates could not join (a server allows 60 connections per address unless maxClientCnxns=0, as ensemble.sh sets): %w",
			n-len(slices.DeleteFunc(out, func(c contender) bool { return c == nil })), errs[i])
	}
	// A lock gives no sign that a contender has queued: it has when it
	// rests, its watch set (or the lock held).
	return awaitIdle(ctx, out)
}

// join connects one contender and, for a speaker, waits until it is in the
// election.
func (b *Bench) join(ctx context.Context, cr *caseRun) (contender, error) {
	name := fmt.Sprintf("bench-%d", b.joined.Add(1))
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out := filepath.Join(b.dir, fmt.Sprintf("%s-%s-%s.txt", cr.Election, cr.Watch, cr.How()))
	if cr.locker != nil {
		connect := func(log *slog.Logger) (*recoverable.RecoverableZookeeper, error) { return b.connect(ctx, log) }
		h, err := newLockHolder(connect, cr.locker, cr.path+"/lock", name, out, cr.lines, b.log)
		if err != nil {
			return nil, err // not a nil holder inside a non-nil interface
		}
		return h, nil
	}
	rz, err := b.connect(ctx, b.log)
	if err != nil {
		return nil, err
	}
	c, err := newSpeakerCandidate(rz, out, name, cr.Policy == election.AtMostOne, cr.lines, b.log)
	if err != nil {
		rz.Close()
		return nil, err
	}
	c.resign = cr.Resign
	// One znode below the case's own folder serves both recipes: the
	// parent of the sequential candidates, or the single-file znode.
	if c.mon, err = cr.New(rz, c, cr.path+"/election"); err != nil {
		c.close()
		return nil, err
	}
	if err := c.join(ctx, cr.path); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// row sums up the counted failovers.
func (cr *caseRun) row() Row {
	n := len(cr.latencies)
	r := Row{Election: cr.Election, Watch: cr.Watch, How: cr.How(), Policy: cr.Policy.String(), Candidates: cr.Candidates, Rounds: n}
	if cr.locker != nil {
		r.Policy = "-"
	}
	if n == 0 {
		return r
	}
	sorted := slices.Clone(cr.latencies)
	slices.Sort(sorted)
	var sum time.Duration
	for _, l := range sorted {
		sum += l
	}
	per := func(v int64) float64 { return float64(v) / float64(n) }
	r.FailoverMsP50, r.FailoverMsP99 = ms(percentile(sorted, 50)), ms(percentile(sorted, 99))
	r.FailoverMsMax, r.FailoverMsMean = ms(sorted[n-1]), ms(sum/time.Duration(n))
	r.LeftMsP50, r.NotifiedMsP50, r.AnsweredMsP50 = median(cr.leftAfter), median(cr.notifiedAfter), median(cr.answeredAfter)
	r.PathRequests, r.PathWrites, r.RoundTrips = per(cr.pathRequests), per(cr.pathWrites), per(cr.roundTrips)
	r.NotificationsPerFailover, r.RequestsPerFailover, r.WritesPerFailover = per(cr.notified), per(cr.requests), per(cr.writes)
	return r
}

// closeAll closes the contenders all at once: one after another, each
// close would hand the lead to the next, and under a herd wake every other.
func (cr *caseRun) closeAll() {
	var wg sync.WaitGroup
	for _, c := range cr.live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
	cr.live = nil
}

// median is the middle of durations, in milliseconds; 0 when there are none.
func median(durations []time.Duration) float64 {
	if len(durations) == 0 {
		return 0
	}
	sorted := slices.Clone(durations)
	slices.Sort(sorted)
	return ms(percentile(sorted, 50))
}

func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
