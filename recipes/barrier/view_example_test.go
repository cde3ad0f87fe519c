package barrier_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"zkspeaker/recipes/barrier"
)

// A teacher's screen shows who is in: two of three members have entered,
// so both wait for the third. Inspect reads the barrier as its members
// stand, and its watch fires when the next one comes.
func ExampleInspect() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	var wg sync.WaitGroup
	defer wg.Wait() // the members give up when ctx ends
	defer cancel()
	for _, name := range []string{"ann", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rz := quietSession()
			defer rz.Close()
			m, _ := barrier.NewDouble(rz, "/example-inspect", 3, barrier.WithName(name))
			_ = m.Enter(ctx) // waits for a third that never comes
		}()
	}
	screen := quietSession()
	defer screen.Close()
	for {
		v, wake, err := barrier.Inspect(ctx, screen, "/example-inspect")
		if err != nil {
			fmt.Println(err)
			return
		}
		if len(v.Members) == 2 {
			fmt.Printf("%d of %d in, %d waiting\n", len(v.Members), v.Count, v.Waiting())
			return
		}
		<-wake
	}
	// Output: 2 of 3 in, 2 waiting
}
