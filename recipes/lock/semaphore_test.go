package lock_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
)

// Three contenders for two leases, each taking a lease again and again:
// never three hold at once, and two do at times. A lone holder waits for
// a second before it lets go (while anyone else still contends), so that
// two at once is the recipe's doing, not the machine's scheduling.
func TestThreeContendersWithTwoLeasesNeverHoldThree(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	at := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var holding, most, finished atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for _, name := range []string{"a", "b", "c"} {
		rz := zktest.Connect(t, cluster.Servers(), 5*time.Second)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer finished.Add(1)
			for range 6 {
				l := lock.New(rz, at, name, lock.Leases(2))
				if err := l.Lock(ctx); err != nil {
					errs <- err
					return
				}
				now := holding.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(60 * time.Millisecond) // long beside a handover: a third would hold meanwhile
				for holding.Load() == 1 && finished.Load() < 2 && ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
				holding.Add(-1)
				if err := l.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if most.Load() != 2 {
		t.Fatalf("at most %d held a lease at once; want 2, never 3", most.Load())
	}
}

// With a and b holding two leases and c waiting, b's release lets c in,
// though a, ahead of b, still holds: c is not watching a lease chosen in
// advance.
func TestAnyLeaseReleasedLetsTheNextIn(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	a, b := line.lease("a", 2), line.lease("b", 2)
	line.mustHold(a, b)
	c := line.lease("c", 2)
	select {
	case err := <-c.held:
		t.Fatalf("c holds a third lease of two (Lock = %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	b.unlock()
	line.mustHold(c)
	a.unlock()
	c.unlock()
}

// A contender that disagrees on the number of leases is refused with
// ErrLeases, before it stands anywhere.
func TestADisagreeingNumberOfLeasesIsRefused(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	line.mustHold(line.lease("two", 2))
	three := lock.New(zktest.Connect(t, []string{line.srv}, 5*time.Second), line.at, "three", lock.Leases(3))
	if err := three.Lock(line.ctx); !errors.Is(err, lock.ErrLeases) {
		t.Fatalf("Lock with 3 leases where 2 are recorded: %v, want lock.ErrLeases", err)
	}
}

// A read or write lock on a semaphore's path is refused: its znode would
// stand in none of the semaphore's lines, and hold beside its leases.
func TestALockOnASemaphoresPathIsRefused(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	ln.mustHold(ln.lease("a", 2))
	for _, opts := range [][]lock.Option{nil, {lock.Shared()}} {
		err := lock.New(ln.rz, ln.at, "plain", opts...).Lock(ln.ctx)
		var le *lock.LeasesError
		if !errors.As(err, &le) || !errors.Is(err, lock.ErrLeases) || le.Recorded != "2" || le.Ours != 0 {
			t.Fatalf("Lock on a semaphore's path = %v; want a *LeasesError recording 2", err)
		}
	}
	if children := ln.children(ln.at); len(children) != 2 {
		t.Fatalf("the path's children are %v; want only the semaphore's gate and leases", children)
	}
}

// A semaphore on a lock's path is refused as well, while a writer holds
// there: its leases would queue under gate and leases, where no reader or
// writer looks, and a lease would hold beside the writer.
func TestASemaphoreOnALocksPathIsRefused(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	w := ln.join("w", false)
	ln.mustHold(w)
	ctx, cancel := context.WithTimeout(ln.ctx, 5*time.Second)
	defer cancel()
	err := lock.New(ln.rz, ln.at, "lease", lock.Leases(2)).Lock(ctx)
	var le *lock.LeasesError
	if !errors.As(err, &le) || le.Ours != 2 || le.Recorded != "" {
		t.Fatalf("Lock with 2 leases on a path where a writer holds = %v; want a *LeasesError that records no N", err)
	}
	if children := ln.children(ln.at); len(children) != 1 {
		t.Fatalf("the path's children are %v; want the writer's znode alone", children)
	}
}

// A contender whose gate znode goes while it waits there (an operator
// deletes it) has lost no lease: it leaves that gate's Lock, whose engine
// would otherwise stand in the gate's line again for nobody and keep
// everyone out, and queues at the gate anew. The leases then pass on in
// order: b, queued again first, then c.
func TestAContenderThatLosesTheGateLeavesItAndQueuesAgain(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	a := ln.lease("a", 1)
	ln.mustHold(a)
	b := ln.lease("b", 1)
	if err := ln.rz.Delete(ln.ctx, b.node, -1); err != nil {
		t.Fatal(err)
	}
	for gate := ln.children(ln.at + "/gate"); len(gate) != 1 || path.Join(ln.at, "gate", gate[0]) == b.node; gate = ln.children(ln.at + "/gate") {
		select {
		case err := <-b.held:
			t.Fatalf("b, its gate znode deleted: Lock = %v; want it to queue again", err)
		case <-ln.ctx.Done():
			t.Fatalf("b never queued at the gate again: the gate's line is %v", gate)
		case <-time.After(10 * time.Millisecond):
		}
	}
	c := ln.lease("c", 1)
	a.unlock()
	ln.mustHold(b)
	ln.mustWait(c)
	b.unlock()
	ln.mustHold(c)
	c.unlock()
	if gate := ln.children(ln.at + "/gate"); len(gate) != 0 {
		t.Fatalf("the gate's line is %v; want it empty", gate)
	}
}

// A contender that holds the gate, waiting for a lease, and loses its
// session there (cut off for longer than it) has lost no lease: it queues
// at the gate again on its new session, as a plain lock's waiter stands
// again, and takes the lease that is freed later. Lock does not fail.
func TestAContenderThatLosesTheGateQueuesAgain(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	a, b := line.lease("a", 2), line.lease("b", 2)
	line.mustHold(a, b)
	proxy := zktest.NewProxy(t, line.srv)
	const short = 2 * time.Second
	rz := zktest.Connect(t, []string{proxy.Addr()}, short)
	c := lock.New(rz, line.at, "c", lock.Leases(2))
	t.Cleanup(func() { c.Unlock(context.Background()) }) //nolint:errcheck // the test's end
	held := make(chan error, 1)
	go func() { held <- c.Lock(line.ctx) }()
	// c holds the gate once it watches its own znode there, as a holder
	// does (alone in the gate, it has no one ahead to watch).
	for !slices.ContainsFunc(watched(t, line)[rz.SessionID()], func(p string) bool { return path.Dir(p) == line.at+"/gate" }) {
		select {
		case err := <-held:
			t.Fatalf("c: Lock = %v, with two leases of two taken", err)
		case <-line.ctx.Done():
			t.Fatal("c never held the gate")
		case <-time.After(20 * time.Millisecond):
		}
	}
	gone := rz.SessionID()
	proxy.Cut()
	time.Sleep(2 * short) // the server expires c's session, and its gate znode
	proxy.Heal()
	for rz.SessionID() == gone {
		select {
		case err := <-held:
			t.Fatalf("c: Lock = %v once its session expired at the gate; want it to queue again", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	b.unlock()
	select {
	case err := <-held:
		if err != nil {
			t.Fatalf("c: Lock = %v after its session expired at the gate and a lease was freed", err)
		}
	case <-line.ctx.Done():
		t.Fatal("c never took the freed lease")
	}
	a.unlock()
}

// watched is what each session watches on the line's server.
func watched(t *testing.T, ln *line) map[int64][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ln.ctx, 2*time.Second)
	defer cancel()
	w, err := fourletter.Watches(ctx, ln.srv)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
