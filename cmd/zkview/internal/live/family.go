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
// false when the child is gone (the watch then fires if it comes back).
type childRead[T any] func(ctx context.Context, path string) (v T, ok bool, wake <-chan zk.Event, err error)

// member is one child of a family and what was read of it.
type member[T any] struct {
	name string
	v    T
}

// family follows the children of a znode and the data of each: the keys
// of a configuration, the sequences of the ID service. Each child has a
// goroutine and a watch of its own, so that a change of one key costs one
// read of that key; the family's goroutine owns them and ends them.
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
	stops  map[string]context.CancelFunc
	wg     sync.WaitGroup
}

// run follows the family until ctx ends, and returns once every child's
// goroutine has ended.
func (f *family[T]) run(ctx context.Context) {
	f.values, f.stops = map[string]T{}, map[string]context.CancelFunc{}
	defer f.wg.Wait()
	defer func() {
		f.mu.Lock()
		for _, stop := range f.stops {
			stop()
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
			if _, ok := f.stops[name]; !ok {
				cctx, stop := context.WithCancel(ctx)
				f.stops[name] = stop
				f.wg.Add(1)
				go f.child(cctx, name)
			}
		}
		for name, stop := range f.stops {
			if !slices.Contains(names, name) {
				stop()
				delete(f.stops, name)
				delete(f.values, name)
			}
		}
		f.mu.Unlock()
		f.publishNow(notified, nil)
		return wake, nil
	}, func(err error) { f.publishNow(time.Time{}, err) })
}

// child follows one child until its context ends.
func (f *family[T]) child(ctx context.Context, name string) {
	defer f.wg.Done()
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, ok, wake, err := f.read(ctx, f.base+"/"+name)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		if _, live := f.stops[name]; live && ok {
			f.values[name] = v
		} else {
			delete(f.values, name)
		}
		f.mu.Unlock()
		f.publishNow(notified, nil)
		return wake, nil
	}, func(err error) {
		if !errors.Is(err, context.Canceled) {
			f.publishNow(time.Time{}, err)
		}
	})
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
