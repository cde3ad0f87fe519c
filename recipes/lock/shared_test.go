package lock_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// Two readers hold at once; a writer, a plain Lock, waits for both,
// watching only the reader just ahead of it, then the next one, and holds
// when the last has gone.
func TestReadersShareAndAWriterWaitsForBoth(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	r1, r2 := line.join("r1", true), line.join("r2", true)
	line.mustHold(r1, r2)
	w := line.join("w", false)
	line.watches(map[*contender]*contender{r1: r1, r2: r2, w: r2})
	line.mustWait(w)

	r2.unlock()
	line.watches(map[*contender]*contender{r1: r1, w: r1})
	line.mustWait(w)
	r1.unlock()
	line.mustHold(w)
}

// A reader that arrives behind a waiting writer waits for it, though only
// readers hold: a stream of readers cannot starve a writer. Readers behind
// the writer all watch it, not each other, and all hold once it is done.
func TestAReaderBehindAWaitingWriterWaitsForIt(t *testing.T) {
	t.Parallel()
	line := newLine(t)
	r1 := line.join("r1", true)
	line.mustHold(r1)
	w := line.join("w", false)
	r2 := line.join("r2", true)
	r3 := line.join("r3", true)
	line.watches(map[*contender]*contender{r1: r1, w: r1, r2: w, r3: w})
	line.mustWait(w, r2, r3)

	r1.unlock()
	line.mustHold(w)
	line.watches(map[*contender]*contender{w: w, r2: w, r3: w})
	line.mustWait(r2, r3)
	w.unlock()
	line.mustHold(r2, r3)
}

// line is a test's lock path on the shared server, and its contenders.
type line struct {
	t   *testing.T
	at  string
	srv string
	ctx context.Context
	rz  *recoverable.RecoverableZookeeper // to list the line
	cs  []*contender
}

// contender is one Lock on a session of its own, locking in the
// background.
type contender struct {
	t    *testing.T
	name string
	ctx  context.Context
	rz   *recoverable.RecoverableZookeeper
	l    *lock.Lock
	node string
	held chan error
}

func newLine(t *testing.T) *line {
	cluster := zktest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return &line{t: t, at: zktest.Path(t), srv: cluster.Server(0), ctx: ctx,
		rz: zktest.Connect(t, cluster.Servers(), 5*time.Second)}
}

// join starts a contender, a reader when shared, and returns once its
// znode stands in line, so that contenders line up in the order they join.
func (ln *line) join(name string, shared bool) *contender {
	ln.t.Helper()
	var opts []lock.Option
	if shared {
		opts = append(opts, lock.Shared())
	}
	return ln.start(name, ln.at, opts...)
}

// lease starts a contender for one of n leases, and returns once it stands
// in the gate's line.
func (ln *line) lease(name string, n int) *contender {
	ln.t.Helper()
	return ln.start(name, ln.at+"/gate", lock.Leases(n))
}

// start starts a contender, and returns once its znode stands under queue.
func (ln *line) start(name, queue string, opts ...lock.Option) *contender {
	ln.t.Helper()
	rz := zktest.Connect(ln.t, []string{ln.srv}, 5*time.Second)
	c := &contender{t: ln.t, name: name, ctx: ln.ctx, rz: rz, l: lock.New(rz, ln.at, name, opts...), held: make(chan error, 1)}
	ln.t.Cleanup(func() { c.l.Unlock(context.Background()) })
	ln.cs = append(ln.cs, c)
	before := ln.children(queue)
	go func() { c.held <- c.l.Lock(ln.ctx) }()
	for {
		// Held first, then listed: a holder's znode is in the listing,
		// unless it went through a semaphore's gate and left it.
		held := false
		select {
		case err := <-c.held:
			c.held <- err
			held = true
		default:
		}
		for _, child := range ln.children(queue) {
			if !slices.Contains(before, child) {
				c.node = path.Join(queue, child)
			}
		}
		if c.node != "" || held {
			return c
		}
		select {
		case <-ln.ctx.Done():
			ln.t.Fatalf("%s never stood under %s", name, queue)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (ln *line) children(under string) []string {
	ln.t.Helper()
	children, err := ln.rz.Children(ln.ctx, under)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		ln.t.Fatal(err)
	}
	return children
}

// nameOf names the contender of a session, or says whose it is not.
func (ln *line) nameOf(session int64) string {
	for _, c := range ln.cs {
		if c.rz.SessionID() == session {
			return c.name
		}
	}
	return fmt.Sprintf("session 0x%x", session)
}

// mustHold fails the test unless each contender's Lock returns nil.
func (ln *line) mustHold(cs ...*contender) {
	ln.t.Helper()
	for _, c := range cs {
		select {
		case err := <-c.held:
			if err != nil {
				ln.t.Fatalf("%s: Lock = %v", c.name, err)
			}
		case <-ln.ctx.Done():
			ln.t.Fatalf("%s never held the lock", c.name)
		}
	}
}

// mustWait fails the test if a contender holds. Called once watches says
// each waits on its znode, it cannot pass by luck: a contender decides
// before it sets its watch.
func (ln *line) mustWait(cs ...*contender) {
	ln.t.Helper()
	for _, c := range cs {
		select {
		case err := <-c.held:
			ln.t.Fatalf("%s holds the lock (Lock = %v), and should wait", c.name, err)
		default:
		}
	}
}

// unlock releases the contender's lock, or leaves the line.
func (c *contender) unlock() {
	c.t.Helper()
	if err := c.l.Unlock(c.ctx); err != nil {
		c.t.Fatalf("%s: Unlock = %v", c.name, err)
	}
}

// watches waits until each contender of want watches, on the server,
// exactly one znode under the lock's path, the one of the contender want
// names (a holder watches its own), and nobody else watches any: each
// waiter watches one znode, so a release wakes only those behind it.
func (ln *line) watches(want map[*contender]*contender) {
	ln.t.Helper()
	var got map[string][]string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(ln.ctx, 2*time.Second)
		bySession, err := fourletter.Watches(ctx, ln.srv)
		cancel()
		if err != nil {
			ln.t.Fatal(err)
		}
		got = map[string][]string{}
		ok := true
		for session, paths := range bySession {
			for _, p := range paths {
				if path.Dir(p) == ln.at {
					got[ln.nameOf(session)] = append(got[ln.nameOf(session)], path.Base(p))
				}
			}
		}
		for c, of := range want {
			ok = ok && slices.Equal(got[c.name], []string{path.Base(of.node)})
		}
		if ok && len(got) == len(want) {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	wanted := map[string]string{}
	for c, of := range want {
		wanted[c.name] = path.Base(of.node)
	}
	ln.t.Fatalf("watches under %s by contender: %v; want %v", ln.at, got, wanted)
}
