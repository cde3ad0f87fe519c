package queue

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// The queue from the outside: what zkview shows of a queue's path. It
// reads what the handles write, by the names they write it under
// (names.go, ledger.go, marker.go), so that the picture is the recipe's.

// View is a queue at one moment: its items in the order of takes, whose
// claim holds each, the handles open on it, and which handle changed the
// items last.
type View struct {
	Path string
	// Exists is false while the queue's znode does not exist.
	Exists bool
	// Items are in the order Take returns them: all of them, or the
	// first n for InspectFirst.
	Items []Queued
	// Names are every item's name, read or not, in the order of takes.
	Names []string
	// Handles are the handles on the queue, by ledger name: producers
	// and consumers alike, as each writes through a ledger of its own.
	Handles []Handle
	// Last is the ledger of the handle whose put, take or Ack changed
	// the items last: each is one multi with a step of the handle's
	// ledger, so that ledger was modified by the transaction that last
	// changed the queue's children. "" when no ledger was (nothing was
	// put yet, or that handle has closed since).
	Last string
}

// Queued is an item in the queue, and the claim on it.
type Queued struct {
	Entry
	// ClaimedBy is the session that holds the item's claim: an
	// AtLeastOnce consumer that took it and has not acknowledged it yet.
	// 0 when nobody holds one.
	ClaimedBy int64
}

// Handle is one handle's ledger.
type Handle struct {
	Ledger string
	// Sessions are the sessions whose markers stand under the ledger:
	// the handle's session while it lives (briefly two, after an expiry),
	// none once it is gone without Close, until a reaper deletes it.
	Sessions []int64
	// Writes is the ledger's version: the handle's puts, takes, Acks
	// and session marks so far.
	Writes int32
}

// Inspect reads the queue at path and returns a watch that fires at its
// next change: an item put or taken, a claim made or ended, a handle
// opened, marked or closed, or the path being made. It only reads, so
// anyone may run it. It watches the queue, each item and each ledger; a
// goroutine hands on the first watch that fires, and ends then, or with
// ctx.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (View, <-chan zk.Event, error) {
	return InspectFirst(ctx, rz, path, 0)
}

// InspectFirst is Inspect reading only the first n items in the order of
// takes (every item when n is 0 or less): each item read costs three
// requests and a watch, and a queue may hold thousands. Claims are taken
// in that order, so they stand among the first items; one further back
// is not seen.
func InspectFirst(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string, n int) (View, <-chan zk.Event, error) {
	v := View{Path: path}
	children, exists, wake, err := rz.ChildrenOrCreationW(ctx, path)
	if err != nil {
		return v, nil, fmt.Errorf("queue: inspect %s: %w", path, err)
	}
	if !exists {
		return v, wake, nil
	}
	v.Exists = true
	wakes := []<-chan zk.Event{wake}
	v.Names = items(children)
	names := v.Names
	if n > 0 && len(names) > n {
		names = names[:n]
	}
	more, err := v.readItems(ctx, rz, names)
	if err == nil {
		wakes = append(wakes, more...)
		more, err = v.readHandles(ctx, rz)
	}
	if err != nil {
		return v, nil, fmt.Errorf("queue: inspect %s: %w", path, err)
	}
	return v, anyOf(ctx, append(wakes, more...)), nil
}

// readItems reads each item, its value and its claim, and watches its
// children, where a claim comes and goes. An item taken while it reads
// is left out: the queue's watch has fired already.
func (v *View) readItems(ctx context.Context, rz *recoverable.RecoverableZookeeper, names []string) ([]<-chan zk.Event, error) {
	var wakes []<-chan zk.Event
	for _, name := range names {
		p := v.Path + "/" + name
		data, _, err := rz.Get(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		claims, wake, err := rz.ChildrenW(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		wakes = append(wakes, wake)
		priority, seq, _ := parseName(name)
		q := Queued{Entry: Entry{Name: name, Priority: priority, Seq: seq, Value: data}}
		for _, c := range claims {
			if ok, st, err := rz.Exists(ctx, p+"/"+c); err == nil && ok && c == claimName {
				q.Claimed, q.ClaimedBy = true, st.EphemeralOwner
			}
		}
		v.Items = append(v.Items, q)
	}
	return wakes, nil
}

// readHandles reads the ledgers, the session markers under each, and
// which ledger the last change of the items moved (Last); it watches the
// ledgers' list and each ledger's markers.
func (v *View) readHandles(ctx context.Context, rz *recoverable.RecoverableZookeeper) ([]<-chan zk.Event, error) {
	dir := v.Path + "/" + ledgersDir
	names, wake, err := rz.ChildrenW(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil // no handle opened yet; the queue's watch sees the folder come
	}
	if err != nil {
		return nil, err
	}
	ok, queue, err := rz.Exists(ctx, v.Path)
	if err != nil || !ok {
		return nil, err
	}
	sort.Strings(names)
	wakes := []<-chan zk.Event{wake}
	for _, name := range names {
		markers, wake, err := rz.ChildrenW(ctx, dir+"/"+name)
		if errors.Is(err, zk.ErrNoNode) {
			continue // reaped or closed while we read
		}
		ok, st, err2 := rz.Exists(ctx, dir+"/"+name)
		if err = errors.Join(err, err2); err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		wakes = append(wakes, wake)
		h := Handle{Ledger: name, Writes: st.Version}
		for _, m := range markers {
			if sid, err := strconv.ParseUint(m, 16, 64); err == nil {
				h.Sessions = append(h.Sessions, int64(sid))
			}
		}
		if st.Mzxid == queue.Pzxid {
			v.Last = name
		}
		v.Handles = append(v.Handles, h)
	}
	return wakes, nil
}

// anyOf fires with the first of wakes to fire: a goroutine per watch
// waits, and each ends at the first, or with ctx. A watch closed without
// an event (the session is gone) fires as EventNotWatching.
func anyOf(ctx context.Context, wakes []<-chan zk.Event) <-chan zk.Event {
	out := make(chan zk.Event, 1)
	fired := make(chan struct{})
	var once sync.Once
	for _, w := range wakes {
		go func() {
			select {
			case ev, ok := <-w:
				if !ok {
					ev = zk.Event{Type: zk.EventNotWatching}
				}
				once.Do(func() {
					out <- ev
					close(fired)
				})
			case <-fired:
			case <-ctx.Done():
			}
		}()
	}
	return out
}
