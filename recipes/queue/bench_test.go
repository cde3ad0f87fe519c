package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// The queue's throughput beside one ZooKeeper write per item, on the
// package's standalone server:
//
//	go test -run '^$' -bench . -benchtime 2000x ./recipes/queue/
//
// create and delete are the floor's writes: a plain sequential create and
// a plain delete, one request per item. put is a create in a multi with
// the ledger's step; take is a list, a read and a delete in a multi with
// the ledger's step; take-alo adds a claim (an ephemeral create) and its
// Ack. Each reports items/s; workers each have a session of their own.
func BenchmarkQueue(b *testing.B) {
	zktest.SkipShort(b)
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("create/%d", workers), func(b *testing.B) { benchPlain(b, workers, false) })
		b.Run(fmt.Sprintf("put/%d", workers), func(b *testing.B) { benchPut(b, workers) })
		b.Run(fmt.Sprintf("delete/%d", workers), func(b *testing.B) { benchPlain(b, workers, true) })
		b.Run(fmt.Sprintf("take/%d", workers), func(b *testing.B) { benchTake(b, workers, queue.AtMostOnce) })
		b.Run(fmt.Sprintf("take-alo/%d", workers), func(b *testing.B) { benchTake(b, workers, queue.AtLeastOnce) })
	}
}

// benchSessions opens n sessions, closed when the benchmark ends.
func benchSessions(b *testing.B, n int) []*recoverable.RecoverableZookeeper {
	out := make([]*recoverable.RecoverableZookeeper, n)
	for i := range out {
		out[i] = zktest.Connect(b, servers, sessionTimeout, recoverable.WithLogger(quietLog()))
	}
	return out
}

// share runs b.N items over the workers, timed, and reports items/s.
func share(b *testing.B, workers int, item func(w int) error) {
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		n := b.N / workers
		if w < b.N%workers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if err := item(w); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "items/s")
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// benchPlain measures plain sequential creates, or plain deletes of
// znodes made before the clock starts.
func benchPlain(b *testing.B, workers int, del bool) {
	ctx := context.Background()
	rzs := benchSessions(b, workers)
	path := fmt.Sprintf("%s-%d", zktest.Path(b), b.N)
	if err := rzs[0].EnsurePath(ctx, path, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	create := func(w int) error {
		_, err := rzs[w].Conn().Create(path+"/n-", []byte("x"), zk.FlagSequence, zk.WorldACL(zk.PermAll))
		return err
	}
	if !del {
		share(b, workers, create)
		return
	}
	var names []string
	for range b.N {
		p, err := rzs[0].Conn().Create(path+"/n-", []byte("x"), zk.FlagSequence, zk.WorldACL(zk.PermAll))
		if err != nil {
			b.Fatal(err)
		}
		names = append(names, p)
	}
	var mu sync.Mutex
	share(b, workers, func(w int) error {
		mu.Lock()
		p := names[len(names)-1]
		names = names[:len(names)-1]
		mu.Unlock()
		return rzs[w].Conn().Delete(p, -1)
	})
}

// benchPut measures puts by workers producers.
func benchPut(b *testing.B, workers int) {
	path := fmt.Sprintf("%s-%d", zktest.Path(b), b.N)
	qs := benchQueues(b, benchSessions(b, workers), path, queue.AtMostOnce)
	share(b, workers, func(w int) error {
		_, err := qs[w].Put(context.Background(), []byte("x"))
		return err
	})
}

// benchTake measures takes (and Acks) by workers consumers of a queue
// filled before the clock starts.
func benchTake(b *testing.B, workers int, d queue.Delivery) {
	ctx := context.Background()
	path := fmt.Sprintf("%s-%d", zktest.Path(b), b.N)
	rzs := benchSessions(b, workers)
	filler := benchQueues(b, rzs[:1], path, queue.AtMostOnce)[0]
	for range b.N {
		if _, err := filler.Put(ctx, []byte("x")); err != nil {
			b.Fatal(err)
		}
	}
	qs := benchQueues(b, rzs, path, d)
	share(b, workers, func(w int) error {
		it, err := qs[w].Take(ctx)
		if err != nil {
			return err
		}
		return it.Ack(ctx)
	})
}

// benchQueues opens a handle on path on each session.
func benchQueues(b *testing.B, rzs []*recoverable.RecoverableZookeeper, path string, d queue.Delivery) []*queue.Queue {
	out := make([]*queue.Queue, len(rzs))
	for i, rz := range rzs {
		q, err := queue.New(context.Background(), rz, path, queue.WithDelivery(d))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = q.Close(context.Background()) })
		out[i] = q
	}
	return out
}
