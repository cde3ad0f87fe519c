package sequence

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
)

// errNotLeader ends a term: ZooKeeper refused a raise because our election
// znode is gone.
var errNotLeader = errors.New("sequence: no longer the persistence leader")

// retryAfter is how long a maintainer waits after a failed step (a store
// that could not write, a lost connection) before it tries again, since
// no watch will wake it.
const retryAfter = time.Second

// term is one span of leadership: a goroutine watching the root's children
// and one maintainer per sequence.
type term struct {
	p      *Persister
	cancel context.CancelFunc
	done   chan struct{}

	node        string // our election znode: every raise checks it still exists
	epoch       int64
	wg          sync.WaitGroup
	maintainers map[string]context.CancelFunc
}

// run is the term: prove we lead, then keep the set of maintainers equal
// to the set of sequences, the article's dynamic node detection.
func (t *term) run(ctx context.Context, confirm func(context.Context) (int64, time.Time, error)) {
	defer close(t.done)
	defer t.wg.Wait()
	defer t.cancel()
	<-t.p.monSet
	t.node = t.p.mon.Node()
	for confirm != nil {
		// Under at-most-one the first confirm is the decision's own proof;
		// when it is stale, a confirm asks ZooKeeper. Until one succeeds,
		// or the election stops us, nothing is maintained.
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		epoch, _, err := confirm(c)
		cancel()
		if err == nil {
			t.epoch = epoch
			break
		}
		if ctx.Err() != nil {
			return
		}
		t.p.log.Warn("could not prove that we lead yet; trying again", "error", err, "in", retryAfter)
		sleep(ctx, retryAfter)
	}
	t.p.log.Info("now the persistence leader: keeping every sequence's limit above its IDs", "root", t.p.o.root, "epoch", t.epoch)
	for ctx.Err() == nil {
		names, wake, err := t.p.rz.ChildrenW(ctx, t.p.o.root)
		if errors.Is(err, zk.ErrNoNode) {
			// No root (ZooKeeper lost its data, and nobody restored yet):
			// wait for it to be made.
			t.p.log.Info("no sequences yet: waiting for their root to be made (seqid create, or seqid restore after a loss)", "root", t.p.o.root)
			// This exists watch may stay on the server until the root
			// is made: one watch on one path, however many sequences
			// come and go.
			var ok bool
			if ok, _, wake, err = t.p.rz.ExistsW(ctx, t.p.o.root); ok {
				continue
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				t.p.log.Warn("could not list the sequences; trying again", "error", err, "in", retryAfter)
				sleep(ctx, retryAfter)
			}
			continue
		}
		t.reconcile(ctx, names) // none when the root is missing
		select {
		case <-wake:
		case <-ctx.Done():
		}
	}
	t.p.log.Info("no longer the persistence leader: stopped maintaining")
}

// raise stores a reservation two blocks above next, and only then raises
// the limit to it in one multi that also checks that our election znode
// still exists. A leader that was paused or cut off and has been replaced
// has lost that znode with its session, so its late raise fails as a
// whole: the check is the fence, applied by ZooKeeper at the moment of the
// write.
//
// One more guard: when the store holds a reservation of another
// incarnation above next, the sequence was made anew after ZooKeeper lost
// its data, not restored, and IDs from next on may have been handed out
// before. Next moves up to that reservation with the raise, as Restore
// would have done.
//
// In ModeCounter, next is the base plus the counter's version, and the
// write raises only the limit: the counter's own writes move next.
func (t *term) raise(ctx context.Context, name, p string, st state, ver int32, next int64) error {
	if max(next, st.Limit) > math.MaxInt64-2*t.p.o.block {
		return reason.New(ErrInvalid, "", "%s is at %d: no room for two more blocks below the largest ID", name, next)
	}
	prev, err := t.p.store.Reserved(ctx, name)
	if err != nil {
		return err
	}
	if prev.Incarnation != "" && prev.Incarnation != st.Incarnation && prev.Value > next && st.counter() {
		// A counter's IDs are its versions above its base: moving next
		// up is a new counter, above the old reservation and everything
		// handed out below our limit (see rollover).
		return t.rollover(ctx, name, p, st, ver, next)
	}
	if prev.Incarnation != "" && prev.Incarnation != st.Incarnation && prev.Value > next {
		// Fix ZooKeeper first, from what is durable already: only once
		// next is past the old reservation may one of the new
		// incarnation replace it in the store.
		t.p.log.Warn("the store holds a reservation of an earlier incarnation of this sequence, above its next ID: "+
			"it was made anew (deleted and created again, or created instead of restored after ZooKeeper lost its data); "+
			"moving its next ID up to the reservation, so that no ID is handed out twice",
			"sequence", name, "next", st.Next, "reservation", prev.Value)
		return t.write(ctx, name, p, st, ver, prev.Value, max(st.Limit, prev.Value), prev.Value)
	}
	target := next + 2*t.p.o.block
	if _, err := t.p.store.Raise(ctx, name, Reservation{target, st.Incarnation, st.Mode}); err != nil {
		return err
	}
	t.p.log.Debug("stored a reservation; now raising the limit", "sequence", name, "stored", target)
	return t.write(ctx, name, p, st, ver, next, target, target)
}

// write sets the sequence's next ID to at least next and its limit to at
// least limit (stored is the reservation behind it, for the log), in one multi that also checks our election znode (the
// fence) and the incarnation's marker. A conflict with a worker is tried
// again on a fresh read; a new incarnation ends it, for maintain to start
// over.
func (t *term) write(ctx context.Context, name, p string, st state, ver int32, next, limit, stored int64) error {
	for {
		want := st
		want.Limit = max(st.Limit, limit)
		if !st.counter() {
			want.Next = max(st.Next, next)
		}
		want = want.written(fmt.Sprintf("raise-%d-%s", t.epoch, newToken()))
		ops := append([]any{&zk.CheckVersionRequest{Path: t.node, Version: -1}}, st.setOps(p, ver, want)...)
		res, err := t.p.rz.Multi(ctx, ops...)
		switch {
		case err == nil:
			t.p.raises.Add(1)
			t.p.log.Info("raised the limit", "sequence", name, "from", st.Limit, "to", want.Limit, "next", max(want.Next, next), "stored", stored)
			return nil
		case len(res) == 3 && errors.Is(res[0].Error, zk.ErrNoNode):
			t.p.refused.Add(1)
			t.p.log.Warn("ZooKeeper refused to raise the limit: our election znode is gone, so we no longer lead", "sequence", name, "to", want.Limit)
			return errNotLeader
		case len(res) == 3 && errors.Is(res[1].Error, zk.ErrNoNode):
			return nil // deleted, or made anew: maintain reads again
		case len(res) == 3 && errors.Is(res[2].Error, zk.ErrBadVersion):
			// A worker wrote in between, or our own retried attempt did:
			// read again, and write unless it is there already.
			data, stat, err := t.p.rz.Get(ctx, p)
			if err != nil {
				return err
			}
			now, err := decodeState(data)
			if err != nil {
				return err
			}
			if now.Incarnation != st.Incarnation || now.Next >= next && now.Limit >= limit || now.counter() {
				return nil // a counter's znode is written by leaders only: maintain reads again
			}
			st, ver = now, stat.Version
		default:
			return err
		}
	}
}

// after logs a failed step and returns a timer to try again.
func after(ctx context.Context, err error, what string, t *term, name string) <-chan time.Time {
	if ctx.Err() != nil {
		return nil
	}
	t.p.log.Warn(what+"; trying again", "sequence", name, "error", err, "in", retryAfter)
	return time.After(retryAfter)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}
