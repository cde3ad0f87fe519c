package lock_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// servers is a real ZooKeeper server for the examples, started by TestMain.
var servers []string

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// exampleSession is one worker's session on the examples' server, its log
// silenced.
func exampleSession() *recoverable.RecoverableZookeeper {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	rz, err := recoverable.Connect(servers, 2*time.Second, recoverable.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	return rz
}

// Two workers want the same lock, each on its own session. Ann gets it
// first; Bob waits behind her znode. When Ann unlocks, Bob alone is woken,
// and holds it, with a higher epoch to fence his writes with.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	annZK, bobZK := exampleSession(), exampleSession()
	defer annZK.Close()
	defer bobZK.Close()

	ann := lock.New(annZK, "/example-lock", "ann")
	if err := ann.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ann holds the lock")

	bob := lock.New(bobZK, "/example-lock", "bob")
	bobHolds := make(chan error, 1)
	go func() { bobHolds <- bob.Lock(ctx) }()
	select {
	case <-bobHolds:
		fmt.Println("bob got the lock while ann held it!")
	case <-time.After(300 * time.Millisecond):
		fmt.Println("bob waits")
	}

	annEpoch := ann.Epoch()
	if err := ann.Unlock(ctx); err != nil { // returns once ann's znode is gone
		fmt.Println(err)
		return
	}
	<-ann.Lost() // closed by the Unlock: ann's work must be over
	if err := <-bobHolds; err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("bob holds the lock; his epoch is higher:", bob.Epoch() > annEpoch)
	if err := bob.Unlock(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ann holds the lock
	// bob waits
	// bob holds the lock; his epoch is higher: true
}

// Ann holds a revocable lock for a long job. Bob needs the lock now: he
// asks her to let go (Revoke marks her znode), and queues. Ann is told
// (Revoked), finishes cleanly and unlocks; Bob holds.
func Example_revoke() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	annZK, bobZK := exampleSession(), exampleSession()
	defer annZK.Close()
	defer bobZK.Close()

	ann := lock.New(annZK, "/example-revoke", "ann", lock.Revocable())
	if err := ann.Lock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ann holds the lock")

	asked, err := lock.Revoke(ctx, bobZK, "/example-revoke", lock.RequestedBy("bob"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range asked {
		fmt.Println("bob asked", h.Name, "to let go")
	}
	bob := lock.New(bobZK, "/example-revoke", "bob")
	bobHolds := make(chan error, 1)
	go func() { bobHolds <- bob.Lock(ctx) }()

	select {
	case <-ann.Revoked():
		fmt.Println("ann is asked to let go; she finishes and unlocks")
	case <-ctx.Done():
		fmt.Println("ann was never asked")
		return
	}
	if err := ann.Unlock(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if err := <-bobHolds; err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("bob holds the lock")
	if err := bob.Unlock(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ann holds the lock
	// bob asked ann to let go
	// ann is asked to let go; she finishes and unlocks
	// bob holds the lock
}
