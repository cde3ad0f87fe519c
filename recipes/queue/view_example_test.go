package queue_test

import (
	"context"
	"fmt"
	"time"

	"zkspeaker/recipes/queue"
)

// A teacher's screen shows the queue as the consumers see it: the urgent
// item first, claimed by the consumer working on it, then the one put
// before it. Inspect reads no handle of its own and writes nothing.
func ExampleInspect() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rz := session()
	defer rz.Close()
	q, err := queue.New(ctx, rz, "/example-inspect", queue.WithDelivery(queue.AtLeastOnce))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Close(ctx)
	_, _ = q.Put(ctx, []byte("wash the dishes"))
	_, _ = q.PutPriority(ctx, []byte("put out the fire"), 9)
	if _, err := q.Take(ctx); err != nil { // claimed, not acknowledged yet
		fmt.Println(err)
		return
	}
	screen := session()
	defer screen.Close()
	v, _, err := queue.Inspect(ctx, screen, "/example-inspect")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range v.Items {
		fmt.Printf("%q priority %d, claimed by the consumer: %v\n", it.Value, it.Priority, it.ClaimedBy == rz.SessionID())
	}
	// Output:
	// "put out the fire" priority 9, claimed by the consumer: true
	// "wash the dishes" priority 0, claimed by the consumer: false
}
