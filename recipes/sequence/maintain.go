package sequence

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"
)

// reconcile starts a maintainer for each new sequence and stops those of
// sequences that are gone.
func (t *term) reconcile(ctx context.Context, names []string) {
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		seen[name] = true
		if _, ok := t.maintainers[name]; ok || ValidateName(name) != nil {
			continue
		}
		mctx, cancel := context.WithCancel(ctx)
		t.maintainers[name] = cancel
		t.p.log.Info("maintaining a sequence", "sequence", name)
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.maintain(mctx, name)
		}()
	}
	for name, cancel := range t.maintainers {
		if !seen[name] {
			cancel()
			delete(t.maintainers, name)
			t.p.log.Info("a sequence was deleted; no longer maintaining it (its reservation stays in the store)", "sequence", name)
		}
	}
}

// maintain keeps one sequence's limit a block or more above its next ID.
// It reads with a watch, so every allocation wakes it; watches carry no
// data and can coalesce, which is why it compares next with the limit
// rather than waiting to see an exact multiple, as the article does. A
// sequence found deleted leaves no watch on its path: see watchReturn. In
// ModeCounter the workers write the counter, not the sequence's znode:
// a second watch, on the counter, wakes it for their writes, and then only
// the counter is read again, since the znode's own watch has not fired: a
// read less per wake-up, at the rate the workers write.
func (t *term) maintain(ctx context.Context, name string) {
	p := path.Join(t.p.o.root, name)
	var data []byte
	var stat *zk.Stat
	var wake <-chan zk.Event // the znode's watch; nil: read it again
	for ctx.Err() == nil {
		var err error
		if wake == nil {
			data, stat, wake, err = t.p.rz.GetW(ctx, p)
		}
		gone := errors.Is(err, zk.ErrNoNode)
		if gone {
			// Deleted. reconcile stops us if it stays so; if it is made
			// anew first, the root's children watch wakes us for it.
			var back bool
			if back, wake, err = t.watchReturn(ctx, name); back {
				wake = nil // made anew since our read: read it
				continue
			}
		}
		var retry <-chan time.Time
		var counted <-chan zk.Event
		switch {
		case gone && errors.Is(err, zk.ErrNoNode):
			retry = time.After(retryAfter) // the root went too: run sees it and stops us
		case err != nil:
			retry = after(ctx, err, "could not read the sequence", t, name)
		case gone:
		default:
			var stop bool
			if counted, retry, stop = t.step(ctx, name, p, data, stat); stop {
				t.cancel() // the whole term ends: the election will tell us soon
				return
			}
		}
		select {
		case <-wake:
			wake = nil
		case <-counted:
		case <-retry:
			wake = nil
		case <-ctx.Done():
		}
	}
}

// step raises the limit of the sequence read at p when it has less than a
// block of room, or makes its znode anew when its version is about to
// wrap. It returns the counter's watch in ModeCounter, a timer when a try
// failed, and stop when we no longer lead.
func (t *term) step(ctx context.Context, name, p string, data []byte, stat *zk.Stat) (counted <-chan zk.Event, retry <-chan time.Time, stop bool) {
	st, err := decodeState(data)
	if err != nil {
		t.p.log.Error("the sequence's znode holds something else; leaving it alone", "sequence", name, "error", err)
		return nil, nil, false
	}
	wraps := stat.Version >= rolloverAt
	var cver int32
	if st.counter() {
		// GetW, not ExistsW: on a missing counter it leaves no watch.
		var cstat *zk.Stat
		_, cstat, counted, err = t.p.rz.GetW(ctx, st.marker(p))
		if err != nil {
			// Made anew since our read (the znode's watch fires), or the
			// counter was deleted by hand: look again in a while.
			return nil, after(ctx, err, "could not read the counter", t, name), false
		}
		cver, wraps = cstat.Version, cstat.Version >= rolloverAt || cstat.Version < 0
	}
	next := st.nextAt(cver)
	step := t.raise
	if wraps {
		step = t.rollover
	} else if st.Limit-next >= t.p.o.block {
		return counted, nil, false // enough room: wait for the next change
	}
	err = step(ctx, name, p, st, stat.Version, next)
	switch {
	case errors.Is(err, errNotLeader):
		return nil, nil, true
	case errors.Is(err, zk.ErrNoAuth):
		// The sequences were made with other credentials, or their
		// ACL was changed under us: while we lead, no backup can
		// raise a limit either. Tell our owner (Failed), who should
		// close us so that a backup takes over; until then, try
		// again, in case the ACL is put back.
		// fail logs it once; the tries after it are quiet.
		t.p.fail(fmt.Errorf("sequence: maintain %s: %w", name, err))
		return counted, time.After(retryAfter), false
	case err != nil:
		return counted, after(ctx, err, "could not maintain the sequence", t, name), false
	}
	return counted, nil, false
}

// watchReturn watches for a deleted sequence's name to come back: back is
// true when the name is listed already (made anew since our read), and
// wake fires otherwise at the next change of the root's children. It sets
// no watch on the sequence's own path. A watch on a missing znode stays on
// the server until a znode of that name is made, and go-zookeeper cannot
// remove it: one for each name that came and went would pile up there, and
// the client would send them all again at every reconnect. The server
// keeps one children watch per path and session, the one run holds on the
// root already, and it fires whenever a name comes or goes.
func (t *term) watchReturn(ctx context.Context, name string) (back bool, wake <-chan zk.Event, err error) {
	names, wake, err := t.p.rz.ChildrenW(ctx, t.p.o.root)
	if err != nil {
		return false, nil, err
	}
	return slices.Contains(names, name), wake, nil
}
