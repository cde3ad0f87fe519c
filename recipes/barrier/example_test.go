package barrier_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples and tests, started
// by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// quietSession is a session whose logs go nowhere, for the examples.
func quietSession() *recoverable.RecoverableZookeeper {
	rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		panic(err)
	}
	return rz
}

// A coordinator holds three workers at the starting line: it sets the
// barrier before they come, and removes it when the data is ready. Every
// waiter watches the barrier's one znode, and all go on at its removal.
func ExampleBarrier() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	boss := quietSession()
	defer boss.Close()
	start, _ := barrier.New(boss, "/example-start")
	if err := start.Set(ctx); err != nil {
		fmt.Println(err)
		return
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rz := quietSession()
			defer rz.Close()
			b, _ := barrier.New(rz, "/example-start")
			_ = b.Wait(ctx)
		}()
	}
	fmt.Println("the data is ready: removing the barrier")
	if err := start.Remove(ctx); err != nil {
		fmt.Println(err)
		return
	}
	wg.Wait()
	fmt.Println("all three workers went on")
	// Output:
	// the data is ready: removing the barrier
	// all three workers went on
}

// Three workers must start a step together, and none may go on to the
// next until all have finished it. Ann and Bob come first and wait; Cid
// makes three, and all three are let in. Then each leaves when its step is
// done, and nobody's Leave returns before the slowest, Cid, has left.
func ExampleDoubleBarrier() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var finished []string
	var wg sync.WaitGroup
	worker := func(name string, work time.Duration) {
		defer wg.Done()
		rz := quietSession()
		defer rz.Close()
		b, _ := barrier.NewDouble(rz, "/example-step", 3, barrier.WithName(name))
		if err := b.Enter(ctx); err != nil {
			fmt.Println(err)
			return
		}
		time.Sleep(work) // the step
		mu.Lock()
		finished = append(finished, name)
		mu.Unlock()
		if err := b.Leave(ctx); err != nil {
			fmt.Println(err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if len(finished) < 3 {
			fmt.Println(name, "left before all had finished!")
		}
	}
	wg.Add(3)
	go worker("ann", 10*time.Millisecond)
	go worker("bob", 10*time.Millisecond)
	go worker("cid", 500*time.Millisecond)
	wg.Wait()
	fmt.Println("finished, in that order:", finished[2], "last")
	// Output:
	// finished, in that order: cid last
}
