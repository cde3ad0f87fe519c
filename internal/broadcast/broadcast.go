// Package broadcast hands every value a publisher announces to every
// observer, in order, without ever blocking the publisher or dropping a
// value. The session of recoverable and the election engine both use it for
// their Observe methods, in the style of etcd's Election.Observe.
package broadcast

import (
	"context"
	"sync"
	"time"
)

// Broadcaster fans values out to observers. Each observer has its own
// unbounded queue, drained into its channel by a goroutine of its own, so a
// slow observer delays nobody: go-zookeeper's event callback, which
// publishes session events, must never block.
type Broadcaster[T any] struct {
	mu      sync.Mutex
	last    T
	final   func(T) bool // true for the value after which a channel closes
	queues  map[*queue[T]]struct{}
	closed  bool
	workers sync.WaitGroup
}

type queue[T any] struct {
	pending []T
	wake    chan struct{} // capacity 1: "pending has something"
}

// New returns a Broadcaster whose current value is first. An observer's
// channel closes after it has carried a value for which final is true.
func New[T any](first T, final func(T) bool) *Broadcaster[T] {
	return &Broadcaster[T]{last: first, final: final, queues: make(map[*queue[T]]struct{})}
}

// Publish records v as the current value and queues it for every observer.
// After Close it does nothing.
func (b *Broadcaster[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.last = v
	for q := range b.queues {
		q.pending = append(q.pending, v)
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// Current returns the last value published.
func (b *Broadcaster[T]) Current() T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// Observe returns a channel that first carries the current value, then every
// later one. The channel closes after a final value, or when ctx is done; it
// is closed at once after Close.
func (b *Broadcaster[T]) Observe(ctx context.Context) <-chan T {
	ch := make(chan T)
	q := &queue[T]{wake: make(chan struct{}, 1)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(ch)
		return ch
	}
	q.pending = []T{b.last}
	q.wake <- struct{}{}
	b.queues[q] = struct{}{}
	b.workers.Add(1)
	b.mu.Unlock()

	go func() {
		defer b.workers.Done()
		defer close(ch)
		defer func() {
			b.mu.Lock()
			delete(b.queues, q)
			b.mu.Unlock()
		}()
		for {
			select {
			case <-q.wake:
			case <-ctx.Done():
				return
			}
			b.mu.Lock()
			batch := q.pending
			q.pending = nil
			b.mu.Unlock()
			for _, v := range batch {
				select {
				case ch <- v:
				case <-ctx.Done():
					return
				}
				if b.final(v) {
					return
				}
			}
		}
	}()
	return ch
}

// Close publishes last, which must be final, and waits up to grace for every
// observer to take it. An observer that neither reads nor cancels its
// context keeps its goroutine until it does. Close is idempotent.
func (b *Broadcaster[T]) Close(last T, grace time.Duration) {
	b.Publish(last)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	idle := len(b.queues) == 0
	b.mu.Unlock()
	if idle {
		// Nobody observes (the speaker command, `speaker bench`): no
		// goroutine and no timer for a grace nobody needs. A leader closes
		// right as its successor takes over, and may share its cores.
		// Observers that left are past their queue, in their last
		// deferred calls.
		b.workers.Wait()
		return
	}
	done := make(chan struct{})
	go func() {
		b.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
	}
}
