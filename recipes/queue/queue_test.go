package queue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
)

// Two producers put in turn; one consumer takes every item in the order
// of the puts.
func TestFIFOInTheOrderOfThePuts(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	servers := zktest.Shared(t).Servers()
	a, b := open(t, connect(t, servers), path), open(t, connect(t, servers), path)
	var want []string
	for i := range 10 {
		for _, p := range []struct {
			q    *queue.Queue
			name string
		}{{a, "a"}, {b, "b"}} {
			v := fmt.Sprintf("%s%d", p.name, i)
			put(t, p.q, v, 0)
			want = append(want, v)
		}
	}
	c := open(t, connect(t, servers), path)
	for i, w := range want {
		if got := string(take(t, c, 10*time.Second).Value); got != w {
			t.Fatalf("take %d: got %q, want %q", i, got, w)
		}
	}
}

// A priority queue: the highest priority first, and FIFO within one.
func TestPriorityThenFIFO(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	rz := connect(t, zktest.Shared(t).Servers())
	q := open(t, rz, path)
	puts := []struct {
		v string
		p int
	}{{"low1", 0}, {"mid1", 5}, {"top", queue.MaxPriority}, {"low2", 0}, {"mid2", 5}}
	for _, p := range puts {
		put(t, q, p.v, p.p)
	}
	want := []string{"top", "mid1", "mid2", "low1", "low2"}
	for i, e := range list(t, rz, path) {
		if string(e.Value) != want[i] {
			t.Fatalf("list %d: %s %q, want %q", i, e.Name, e.Value, want[i])
		}
	}
	for i, w := range want {
		it := take(t, q, 10*time.Second)
		if string(it.Value) != w {
			t.Fatalf("take %d: got %q (priority %d), want %q", i, it.Value, it.Priority, w)
		}
	}
	ctx := context.Background()
	if _, err := q.PutPriority(ctx, nil, queue.MaxPriority+1); !errors.Is(err, queue.ErrInvalid) {
		t.Fatalf("priority %d: %v, want ErrInvalid", queue.MaxPriority+1, err)
	}
}

// Six takers, three of each delivery mode, race for 120 items on their own
// sessions: every item is taken by exactly one, and the queue ends empty.
func TestNoItemIsTakenTwiceByConcurrentTakers(t *testing.T) {
	t.Parallel()
	const n = 120
	path := zktest.Path(t)
	servers := zktest.Shared(t).Servers()
	p := open(t, connect(t, servers), path)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	got := map[string]int{}
	total := 0
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := range 6 {
		d := queue.AtMostOnce
		if i%2 == 1 {
			d = queue.AtLeastOnce
		}
		q := open(t, connect(t, servers), path, queue.WithDelivery(d))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, err := q.Take(ctx)
				if err != nil {
					errs <- err
					return
				}
				if err := it.Ack(ctx); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				got[string(it.Value)]++
				total++
				done := total == n
				mu.Unlock()
				if done {
					cancel()
				}
			}
		}()
	}
	for i := range n {
		if _, err := p.Put(ctx, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Error(err)
		}
	}
	for i := range n {
		if c := got[fmt.Sprint(i)]; c != 1 {
			t.Errorf("item %d taken %d times", i, c)
		}
	}
	if left := list(t, connect(t, servers), path); len(left) != 0 {
		t.Fatalf("%d items left", len(left))
	}
}

// An AtLeastOnce item given back with Release is taken again, at its
// place in the order, and another consumer waiting behind its claim is
// woken by the Release.
func TestAReleasedItemIsTakenAgain(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	servers := zktest.Shared(t).Servers()
	put(t, open(t, connect(t, servers), path), "job", 0)
	first := open(t, connect(t, servers), path, queue.WithDelivery(queue.AtLeastOnce))
	second := open(t, connect(t, servers), path, queue.WithDelivery(queue.AtLeastOnce))
	it := take(t, first, 10*time.Second)
	got := make(chan *queue.Item, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		it, err := second.Take(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- it
	}()
	empty(t, first, electiontest.Slack) // claimed: nobody else takes it
	ctx := context.Background()
	if err := it.Release(ctx); err != nil {
		t.Fatal(err)
	}
	again := <-got
	if again == nil || again.Name != it.Name {
		t.Fatalf("after the release the second consumer took %v, want %s", again, it.Name)
	}
	if err := again.Ack(ctx); err != nil {
		t.Fatal(err)
	}
	if err := it.Ack(ctx); err != nil { // released: nothing of ours to acknowledge
		t.Fatalf("Ack after Release: %v", err)
	}
}
