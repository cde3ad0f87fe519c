package lock_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// A revocable holder asked to let go is told (Revoked), and once it
// unlocks, the waiter behind it holds; the waiter itself was not asked.
func TestARevocableHolderIsAskedAndTheNextHolds(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	ann := ln.start("ann", ln.at, lock.Revocable())
	ln.mustHold(ann)
	bob := ln.start("bob", ln.at, lock.Revocable())
	asked, err := lock.Revoke(ln.ctx, ln.rz, ln.at, lock.RequestedBy("carol"))
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Name != "ann" || asked[0].Node != ann.node || asked[0].Already {
		t.Fatalf("Revoke asked %+v; want ann alone, at %s, first to ask", asked, ann.node)
	}
	select {
	case <-ann.l.Revoked():
	case <-ln.ctx.Done():
		t.Fatal("ann was never told of the revoke")
	}
	data, _, err := ln.rz.Get(ln.ctx, bob.node)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, marked := lock.ReadMark(data); marked {
		t.Fatalf("the waiter bob was marked too: %q", data)
	}
	ann.unlock()
	left, err := lock.AwaitRelease(ln.ctx, ln.rz, asked)
	if err != nil || len(left) != 0 {
		t.Fatalf("AwaitRelease = %v, %v; want none left", left, err)
	}
	ln.mustHold(bob)
	select {
	case <-bob.l.Revoked():
		t.Fatal("bob, never asked, is told to let go")
	default:
	}
}

// An Irrevocable holder is asked all the same: it logs the request, and
// holds on; AwaitRelease says it still holds.
func TestAnIrrevocableHolderLogsTheRequestAndHoldsOn(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	var log syncBuffer
	rz := zktest.Connect(t, []string{ln.srv}, 5*time.Second, recoverable.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	ann := lock.New(rz, ln.at, "ann", lock.Irrevocable())
	if err := ann.Lock(ln.ctx); err != nil {
		t.Fatal(err)
	}
	defer ann.Unlock(context.Background()) //nolint:errcheck // the test's end
	asked, err := lock.Revoke(ln.ctx, ln.rz, ln.at)
	if err != nil || len(asked) != 1 {
		t.Fatalf("Revoke = %+v, %v; want ann asked", asked, err)
	}
	for !strings.Contains(log.String(), "not revocable: holding on") {
		select {
		case <-ln.ctx.Done():
			t.Fatalf("ann never logged the request; her log:\n%s", log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// She read the mark: were she to let go, Revoked would be closed now.
	select {
	case <-ann.Revoked():
		t.Fatal("an irrevocable holder was told to let go")
	case <-ann.Lost():
		t.Fatal("ann lost the lock at the request")
	default:
	}
	waiting, cancel := context.WithTimeout(ln.ctx, 200*time.Millisecond)
	defer cancel()
	if left, err := lock.AwaitRelease(waiting, ln.rz, asked); err != nil || len(left) != 1 {
		t.Fatalf("AwaitRelease = %v, %v; want ann still holding", left, err)
	}
}

// Revoke asks every holder of the line and no waiter: both readers that
// hold together, not the writer behind them; of a semaphore, the leases
// held, not the contender at the gate. On a path nobody holds it asks
// nobody.
func TestRevokeAsksEveryHolderAndNoWaiter(t *testing.T) {
	t.Parallel()
	t.Run("readers", func(t *testing.T) {
		t.Parallel()
		ln := newLine(t)
		r1, r2 := ln.join("r1", true), ln.join("r2", true)
		ln.mustHold(r1, r2)
		w := ln.join("w", false)
		mustAsk(t, ln, r1.node, r2.node)
		ln.mustWait(w)
	})
	t.Run("leases", func(t *testing.T) {
		t.Parallel()
		ln := newLine(t)
		var cs []*contender
		for _, name := range []string{"a", "b", "c"} {
			cs = append(cs, ln.start(name, ln.at+"/gate", lock.Leases(2), lock.Revocable()))
		}
		ln.mustHold(cs[0], cs[1])
		asked, err := lock.Revoke(ln.ctx, ln.rz, ln.at)
		if err != nil || len(asked) != 2 {
			t.Fatalf("Revoke = %+v, %v; want the two leases asked", asked, err)
		}
		for _, h := range asked {
			if path.Dir(h.Node) != ln.at+"/leases" || h.Name != "a" && h.Name != "b" {
				t.Fatalf("Revoke asked %+v; want a's and b's leases", asked)
			}
		}
		for _, c := range cs[:2] {
			select {
			case <-c.l.Revoked():
			case <-ln.ctx.Done():
				t.Fatalf("%s, holding a lease, was never told", c.name)
			}
		}
		ln.mustWait(cs[2])
	})
	t.Run("nobody", func(t *testing.T) {
		t.Parallel()
		ln := newLine(t)
		mustAsk(t, ln) // no path yet
		c := ln.join("gone", false)
		ln.mustHold(c)
		c.unlock()
		mustAsk(t, ln) // the path, and nobody in line
	})
}

// A mark set on a waiter's znode, by hand, is honoured the moment that
// waiter comes to hold: it reads its data as soon as it holds.
func TestAMarkOnAWaiterIsHonouredWhenItHolds(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	ann := ln.join("ann", false)
	ln.mustHold(ann)
	bob := ln.start("bob", ln.at, lock.Revocable())
	data, st, err := ln.rz.Get(ln.ctx, bob.node)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ln.rz.Set(ln.ctx, bob.node, lock.MarkRevoke(data, "zkCli.sh"), st.Version); err != nil {
		t.Fatal(err)
	}
	ann.unlock()
	ln.mustHold(bob)
	select {
	case <-bob.l.Revoked():
	case <-ln.ctx.Done():
		t.Fatal("bob, marked while waiting, was never told once he held")
	}
}

// mustAsk revokes the lock at ln's path and fails unless it asked exactly
// the holders of the znodes given.
func mustAsk(t *testing.T, ln *line, want ...string) {
	t.Helper()
	asked, err := lock.Revoke(ln.ctx, ln.rz, ln.at)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range asked {
		got = append(got, h.Node)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Revoke asked %v; want %v", got, want)
	}
}

// syncBuffer is a log's buffer, written by the lock's goroutines and read
// by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A holder that lets go while Revoke asks hands the lock on, and Revoke
// asks the next holder rather than say that nobody holds: with a waiter
// always in line behind the one that unlocks, someone holds throughout,
// and Revoke must ask someone. The unlock and the request race, at a
// varied offset, again and again.
func TestRevokeDuringAHandoverAsksTheNextHolder(t *testing.T) {
	t.Parallel()
	ln := newLine(t)
	a := zktest.Connect(t, []string{ln.srv}, 5*time.Second)
	b := zktest.Connect(t, []string{ln.srv}, 5*time.Second)
	first := lock.New(a, ln.at, "first")
	if err := first.Lock(ln.ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		next := lock.New(b, ln.at, "next")
		held := make(chan error, 1)
		go func() { held <- next.Lock(ln.ctx) }()
		waitForChildren(t, ln, 2)
		unlocked := make(chan error, 1)
		go func() {
			time.Sleep(time.Duration(i%12) * 100 * time.Microsecond)
			unlocked <- first.Unlock(ln.ctx)
		}()
		asked, err := lock.Revoke(ln.ctx, ln.rz, ln.at)
		if err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(<-unlocked, <-held); err != nil {
			t.Fatal(err)
		}
		if len(asked) == 0 {
			t.Fatalf("round %d: Revoke asked nobody, while first or next held throughout", i)
		}
		// The roles turn: next holds, and first queues behind it.
		first, a, b = next, b, a
	}
	_ = first.Unlock(ln.ctx)
}

// waitForChildren waits until the lock's path has n children.
func waitForChildren(t *testing.T, ln *line, n int) {
	t.Helper()
	for len(ln.children(ln.at)) != n {
		select {
		case <-ln.ctx.Done():
			t.Fatalf("the path never had %d children: %v", n, ln.children(ln.at))
		case <-time.After(5 * time.Millisecond):
		}
	}
}
