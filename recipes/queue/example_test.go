package queue_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// session opens a quiet session for an example.
func session() *recoverable.RecoverableZookeeper {
	rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quietLog()))
	if err != nil {
		panic(err)
	}
	return rz
}

// A kitchen's order queue. The waiter puts three orders, the last one
// urgent; the cook takes them: the urgent one first, then the others in
// the order they came.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waiterZK, cookZK := session(), session()
	defer waiterZK.Close()
	defer cookZK.Close()

	waiter, err := queue.New(ctx, waiterZK, "/example-orders")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer waiter.Close(ctx)
	for _, order := range []string{"soup", "salad"} {
		if _, err := waiter.Put(ctx, []byte(order)); err != nil {
			fmt.Println(err)
			return
		}
	}
	if _, err := waiter.PutPriority(ctx, []byte("bread for table 4"), 9); err != nil {
		fmt.Println(err)
		return
	}

	cook, err := queue.New(ctx, cookZK, "/example-orders")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cook.Close(ctx)
	for range 3 {
		it, err := cook.Take(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("cook takes %q (priority %d)\n", it.Value, it.Priority)
	}
	// Output:
	// cook takes "bread for table 4" (priority 9)
	// cook takes "soup" (priority 0)
	// cook takes "salad" (priority 0)
}

// At least once: a consumer claims an item and dies before it is done
// (here its session is closed, as when the process is killed and its
// session expires). The claim ends with the session, and the item comes
// back to the next consumer, who acknowledges it.
func Example_atLeastOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	firstZK, secondZK := session(), session()
	defer secondZK.Close()

	first, err := queue.New(ctx, firstZK, "/example-jobs", queue.WithDelivery(queue.AtLeastOnce))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := first.Put(ctx, []byte("resize photo 17")); err != nil {
		fmt.Println(err)
		return
	}
	it, err := first.Take(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("first worker claims %q, and dies\n", it.Value)
	firstZK.Close() // its claim, an ephemeral znode, goes with the session

	second, err := queue.New(ctx, secondZK, "/example-jobs", queue.WithDelivery(queue.AtLeastOnce))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer second.Close(ctx)
	it, err = second.Take(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("second worker claims %q\n", it.Value)
	fmt.Println("ack:", it.Ack(ctx))
	left, _ := queue.List(ctx, secondZK, "/example-jobs")
	fmt.Println("items left:", len(left))
	// Output:
	// first worker claims "resize photo 17", and dies
	// second worker claims "resize photo 17"
	// ack: <nil>
	// items left: 0
}
