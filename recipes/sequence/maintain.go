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
// sequence found deleted leaves no watch on its path: see watchReturn.
func (t *term) maintain(ctx context.Context, name string) {
	p := path.Join(t.p.o.root, name)
	for ctx.Err() == nil {
		data, stat, wake, err := t.p.rz.GetW(ctx, p)
		gone := errors.Is(err, zk.ErrNoNode)
		if gone {
			// Deleted. reconcile stops us if it stays so; if it is made
			// anew first, the root's children watch wakes us for it.
			var back bool
			if back, wake, err = t.watchReturn(ctx, name); back {
				continue
			}
		}
		var retry <-chan time.Time
		switch {
		case gone && errors.Is(err, zk.ErrNoNode):
			retry = time.After(retryAfter) // the root went too: run sees it and stops us
		case err != nil:
			retry = after(ctx, err, "could not read the sequence", t, name)
		case gone:
		default:
			st, derr := decodeState(data)
			if derr != nil {
				t.p.log.Error("the sequence's znode holds something else; leaving it alone", "sequence", name, "error", derr)
				break
			}
			step := t.raise
			if stat.Version >= rolloverAt {
				step = t.rollover
			} else if st.Limit-st.Next >= t.p.o.block {
				break // enough room: wait for the next change
			}
			if err := step(ctx, name, p, st, stat.Version); errors.Is(err, errNotLeader) {
				t.cancel() // the whole term ends: the election will tell us soon
				return
			} else if errors.Is(err, zk.ErrNoAuth) {
				// The sequences were made with other credentials, or their
				// ACL was changed under us: while we lead, no backup can
				// raise a limit either. Tell our owner (Failed), who should
				// close us so that a backup takes over; until then, try
				// again, in case the ACL is put back.
				// fail logs it once; the tries after it are quiet.
				t.p.fail(fmt.Errorf("sequence: maintain %s: %w", name, err))
				retry = time.After(retryAfter)
			} else if err != nil {
				retry = after(ctx, err, "could not maintain the sequence", t, name)
			}
		}
		select {
		case <-wake:
		case <-retry:
		case <-ctx.Done():
		}
	}
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
