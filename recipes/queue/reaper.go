package queue

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"
)

// A handle that is killed, or whose process ends without Close, leaves its
// ledger behind, and its session's marker goes when the session expires.
// Each open handle looks at the other ledgers every half of its session
// timeout and deletes one that has been without a marker, at one version,
// for a grace of its owner's session timeout (the ledger's data). The
// delete is at the version it saw: a handle that came back marked its
// ledger and moved the version, or holds a marker now, and either fails
// the delete. So a handle back within a session timeout of its session's
// end finds its ledger and settles any write left unknown; only one away
// for longer loses the answer, and says so (ErrUnsettled), never guessing.
// See README.md for the fault schedule.

// unmarked is a ledger the reaper saw without a marker.
type unmarked struct {
	version int32
	since   time.Time
	grace   time.Duration
}

// reap looks at the ledgers until ctx ends or the handle's client is
// closed, then closes done.
func (q *Queue) reap(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	seen := map[string]unmarked{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.rz.Done():
			return
		case <-time.After(q.rz.SessionTimeout() / 2):
		}
		q.reapOnce(ctx, seen)
	}
}

// reapOnce deletes the ledgers without a marker for their grace, and notes
// those newly seen without one.
func (q *Queue) reapOnce(ctx context.Context, seen map[string]unmarked) {
	dir := q.path + "/" + ledgersDir
	children, err := q.rz.Children(ctx, dir)
	if err != nil {
		return // the next look tries again
	}
	here := map[string]bool{}
	for _, name := range children {
		p := dir + "/" + name
		if p == *q.ledger.current.Load() {
			continue // ours: we mark it ourselves
		}
		data, st, err := q.rz.Get(ctx, p)
		if err != nil || st.EphemeralOwner != 0 || st.NumChildren > 0 {
			continue
		}
		here[name] = true
		u, ok := seen[name]
		if !ok || u.version != st.Version {
			seen[name] = unmarked{version: st.Version, since: time.Now(), grace: q.graceOf(data)}
			continue
		}
		if time.Since(u.since) < u.grace {
			continue
		}
		err = q.rz.Delete(ctx, p, st.Version)
		switch {
		case err == nil || errors.Is(err, zk.ErrNoNode):
			q.log.Info("deleted the ledger of a handle gone for good: its session ended and it did not come back", "ledger", name, "unmarked", time.Since(u.since).Round(time.Millisecond))
		case errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNotEmpty):
			// Its handle came back: start again.
		default:
			continue
		}
		delete(seen, name)
	}
	for name := range seen {
		if !here[name] {
			delete(seen, name)
		}
	}
}

// graceOf reads a ledger's grace; one of another format gets ours.
func (q *Queue) graceOf(data []byte) time.Duration {
	ms, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil || ms <= 0 {
		return q.rz.SessionTimeout()
	}
	return time.Duration(ms) * time.Millisecond
}
