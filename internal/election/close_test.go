package election

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// servers is the standalone ZooKeeper server that TestMain starts.
var servers []string

// TestMain starts that server and fails the package when its tests leave a
// goroutine running (zktest.Main).
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}

// goroutineID reads the running goroutine's number from its stack header,
// "goroutine 7 [running]:": enough for a test to tell who called.
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.Atoi(string(buf[:bytes.IndexByte(buf, ' ')]))
	return id
}

// stallingRecipe decides "follower" at once and then waits for a watch that
// never fires, or, when stall is set, never answers its Check at all until
// the engine gives up on it. It records who called Leave.
type stallingRecipe struct {
	stall   bool
	checked chan struct{} // closed on the first Check
	once    sync.Once

	mu     sync.Mutex
	leaves []int // the goroutine of each Leave
}

func (r *stallingRecipe) Check(ctx context.Context) (Decision, error) {
	r.once.Do(func() { close(r.checked) })
	if r.stall {
		<-ctx.Done()
		return Decision{}, ctx.Err()
	}
	return Decision{Node: "/election/n_0000000001", Wake: make(chan zk.Event)}, nil
}

func (r *stallingRecipe) Leave(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leaves = append(r.leaves, goroutineID())
	return nil
}

// Close leaves exactly once, whatever the loop is doing. A loop waiting for
// its watch lets Close leave from the caller's goroutine, one hand-off
// sooner than waking the loop to do it; a loop in the middle of
// a Check is ended, and leaves on its way out, never beside Close.
func TestCloseLeavesOnceWhetherTheLoopIsIdleOrBusy(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	for _, tc := range []struct {
		name        string
		stall       bool
		fromCloser  bool
		description string
	}{
		{"idle", false, true, "the loop waits for its watch: Close leaves itself"},
		{"busy", true, false, "the loop is in a Check: it leaves as it ends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rz := zktest.Connect(t, servers, 4*time.Second)
			r := &stallingRecipe{stall: tc.stall, checked: make(chan struct{})}
			c := Run(rz, zktest.NewListener("x"), r, Config{Policy: AtMostOne, Logger: zktest.Logger(t)})
			select {
			case <-r.checked:
			case <-time.After(10 * time.Second):
				t.Fatal("the candidate never checked")
			}
			if !tc.stall {
				// Wait until the loop has applied its decision and let go
				// of its turn: it waits for the watch then, and nothing
				// else will wake it.
				deadline := time.Now().Add(5 * time.Second)
				for c.Node() == "" || !c.turn.TryLock() {
					if time.Now().After(deadline) {
						t.Fatal("the loop never went back to waiting")
					}
					time.Sleep(time.Millisecond)
				}
				c.turn.Unlock()
			}
			start := time.Now()
			c.Close()
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("Close took %v; a Check in progress must end with it", took)
			}
			r.mu.Lock()
			leaves := append([]int(nil), r.leaves...)
			r.mu.Unlock()
			if len(leaves) != 1 {
				t.Fatalf("%s: Leave was called %d times, want exactly 1", tc.description, len(leaves))
			}
			if fromCloser := leaves[0] == goroutineID(); fromCloser != tc.fromCloser {
				t.Errorf("%s: Leave ran on Close's goroutine: %v, want %v", tc.description, fromCloser, tc.fromCloser)
			}
			if st := c.State(); st != StateClosed {
				t.Errorf("state after Close = %v, want %v", st, StateClosed)
			}
		})
	}
}
