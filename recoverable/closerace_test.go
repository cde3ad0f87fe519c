package recoverable_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// Close returns while requests are in flight on a slow network, however
// their sends and the close interleave. go-zookeeper's loop can wedge for
// good when a request that goes out as the client closes is answered
// three times (the close's "tie", a failed write, the flush) on a channel
// that holds two; Close then waited for that loop forever.
func TestCloseReturnsWithRequestsInFlight(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	cluster := zktest.Start(t, 1)
	for i := range 20 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			p := zktest.NewProxy(t, cluster.Servers()[0])
			p.SetReplyLatency(20 * time.Millisecond)
			rz, err := recoverable.Connect([]string{p.Addr()}, 4*time.Second, recoverable.WithLogger(zktest.Logger(t)))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if err := rz.WaitConnected(ctx); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ctx.Err() == nil {
						_, _, _ = rz.ExistsOnce(ctx, "/")
					}
				}()
			}
			time.Sleep(time.Duration(i%7) * 13 * time.Millisecond)
			closed := make(chan struct{})
			go func() { cancel(); rz.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(20 * time.Second):
				t.Fatal("Close has not returned after 20 s")
			}
			wg.Wait()
		})
	}
}
