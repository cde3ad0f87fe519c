package live

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// childRead reads one child of a family and leaves a watch on it; ok is
// false when the child is gone, and then it leaves no watch at all. A
// watch on a missing znode stays on the server until the znode is made,
// and go-zookeeper cannot remove it: one for each name that came and went
// would pile up there, and the client would send them all again at every
// reconnect. The family's children watch tells when the name comes back.
type childRead[T any] func(ctx context.Context, path string) (v T, ok bool, wake <-chan zk.Event, err error)

// member is one child of a family and what was read of it.
type member[T any] struct {
	name string
	v    T
}

// family follows the children of a znode and the data of each: the keys
// of a configuration, the sequences of the ID service. Each child has a
// goroutine and a watch of its own, so that a change of one key costs one
// read of that key; the family's goroutine starts them and ends them. A
// child that finds its znode gone ends itself and has the family list the
// children again, so that a name made anew meanwhile gets a child again.
type family[T any] struct {
	rz   *recoverable.RecoverableZookeeper
	base string
	read childRead[T]
	// publish gets every change: the children as last read, sorted by
	// name, whether base exists, and the error of a failed read.
	publish func(notified time.Time, exists bool, members []member[T], err error)

	mu     sync.Mutex
	exists bool
	values map[string]T
	kids   map[string]*kid
	// gone gets a token when a child found its znode gone: the family
	// lists again, as its children watch may have fired before.
	gone chan struct{}
	wg   sync.WaitGroup
}

// kid is one child's goroutine, as the family knows it: a name that goes
// and comes back gets a new kid, and an old one must not touch its value.
type kid struct{ stop context.CancelFunc }

// run follows the family until ctx ends, and returns once every child's
// goroutine has ended.
func (f *family[T]) run(ctx context.Context) {
	f.values, f.kids, f.gone = map[string]T{}, map[string]*kid{}, make(chan struct{}, 1)
	defer f.wg.Wait()
	defer func() {
		f.mu.Lock()
		for _, k := range f.kids {
			k.stop()
		}
		f.mu.Unlock()
	}()
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		names, exists, wake, err := children(ctx, f.rz, f.base)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		f.exists = exists
		for _, name := range names {
			if _, ok := f.kids[name]; !ok {
				cctx, stop := context.WithCancel(ctx)
				k := &kid{stop}
				f.kids[name] = k
				f.wg.Add(1)
				go f.child(cctx, name, k)
			}
		}
		for name, k := range f.kids {
			if !slices.Contains(names, name) {
				k.stop()
				delete(f.kids, name)
				delete(f.values, name)
			}
		}
		f.mu.Unlock()
		f.publishNow(notified, nil)
		return f.either(ctx, wake), nil
	}, func(err error) { f.publishNow(time.Time{}, err) })
}

// either fires when wake does or when a child finds its znode gone,
// whichever comes first.
func (f *family[T]) either(ctx context.Context, wake <-chan zk.Event) <-chan zk.Event {
	out := make(chan zk.Event, 1)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		select {
		case ev := <-wake:
			out <- ev
		case <-f.gone:
			out <- zk.Event{} // follow reads again whatever the event
		case <-ctx.Done():
		}
	}()
	return out
}

// child follows one child until its context ends, or until it finds the
// child's znode gone.
func (f *family[T]) child(ctx context.Context, name string, k *kid) {
	defer f.wg.Done()
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, ok, wake, err := f.read(ctx, f.base+"/"+name)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		mine := f.kids[name] == k
		if mine && ok {
			f.values[name] = v
		} else if mine {
			delete(f.values, name)
			delete(f.kids, name)
		}
		f.mu.Unlock()
		f.publishNow(notified, nil)
		if !ok {
			// No watch was left: end here (follow returns with the
			// context), and have the family list again, after this
			// kid left its map.
			k.stop()
			if mine {
				f.listAgain()
			}
		}
		return wake, nil
	}, func(err error) {
		if !errors.Is(err, context.Canceled) {
			f.publishNow(time.Time{}, err)
		}
	})
}

// listAgain wakes the family to list its children again; a wake already
// pending covers this one.
func (f *family[T]) listAgain() {
	select {
	case f.gone <- struct{}{}:
	default:
	}
}

// publishNow hands the family as it stands to publish, under the lock, so
// that an older picture never lands after a newer one.
func (f *family[T]) publishNow(notified time.Time, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	members := make([]member[T], 0, len(f.values))
	for name, v := range f.values {
		members = append(members, member[T]{name, v})
	}
	slices.SortFunc(members, func(a, b member[T]) int { return strings.Compare(a.name, b.name) })
	f.publish(notified, f.exists, members, err)
}
