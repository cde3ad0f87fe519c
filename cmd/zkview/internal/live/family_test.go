package live

import (
	"context"
	"path"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// TestANameMadeAnewWhileItsChildLeavesShows drives the one schedule in
// which a child that found its znode gone, and set no watch for its
// return, could lose the name for good: the key is deleted and made anew
// while its child still holds the answer "no such znode", and the family
// lists its children (and finds the name there, with the child still in
// its place) before that child leaves. No watch is left to fire then:
// the child must have the family list again once it has left.
func TestANameMadeAnewWhileItsChildLeavesShows(t *testing.T) {
	t.Parallel()
	const session = 4 * time.Second
	within := session + electiontest.Slack
	server := zktest.Start(t, 1).Server(0)
	admin := zktest.Connect(t, []string{server}, session)
	viewer := zktest.Connect(t, []string{server}, session)
	ctx := context.Background()
	const base = "/anew"
	for _, p := range []string{base, base + "/x"} {
		if _, err := admin.Create(ctx, p, []byte("1"), zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	s := newStaged(t, viewer, base)
	s.await(t, within, "x shown", func(e entry) bool { return e.keys["x"] == "1" })

	// Hold the family in its publish, after a change it listed.
	s.hold()
	create(t, admin, base+"/y", "1")
	s.await(t, within, "the family's listing with y", func(e entry) bool { return e.notified })
	// x goes: its child reads "no such znode" and waits there; x comes
	// back before the family lists again.
	s.holdGone.Store(true)
	if err := admin.Delete(ctx, base+"/x", -1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.sawGone:
	case <-time.After(within):
		t.Fatalf("x's child did not read it again within %s of its deletion", within)
	}
	create(t, admin, base+"/x", "2")
	s.drain()
	s.open()
	s.await(t, within, "the family's listing after x came back", func(e entry) bool { return e.notified })
	s.release() // now the child of the old x leaves
	s.await(t, within, "x made anew, with its new value", func(e entry) bool { return e.keys["x"] == "2" })
}

// entry is one call of the family's publish.
type entry struct {
	notified bool // a watch's notification led to it
	keys     map[string]string
}

// staged runs a family of keys whose publish and child reads the test
// can hold.
type staged struct {
	entries chan entry
	mu      sync.Mutex
	// gate, while open (closed), lets every publish return; hold makes a
	// new one, which keeps each publish (and so the family's lock) until
	// open.
	gate chan struct{}
	// holdGone makes the next read that finds x gone signal sawGone and
	// wait for release before its child sees the answer.
	holdGone atomic.Bool
	sawGone  chan struct{}
	resume   chan struct{}
	released sync.Once
}

// hold keeps every publish from now until open.
func (s *staged) hold() { s.mu.Lock(); s.gate = make(chan struct{}); s.mu.Unlock() }

// open lets every publish return, those held and those to come.
func (s *staged) open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.gate:
	default:
		close(s.gate)
	}
}

// release lets the child held by holdGone see its answer.
func (s *staged) release() { s.released.Do(func() { close(s.resume) }) }

// newStaged follows base with a family until the test ends.
func newStaged(t *testing.T, rz *recoverable.RecoverableZookeeper, base string) *staged {
	s := &staged{entries: make(chan entry, 1000), gate: make(chan struct{}), sawGone: make(chan struct{}, 1), resume: make(chan struct{})}
	close(s.gate)
	read := readKey(rz)
	f := &family[Key]{rz: rz, base: base}
	f.read = func(ctx context.Context, p string) (Key, bool, <-chan zk.Event, error) {
		k, ok, wake, err := read(ctx, p)
		if !ok && err == nil && path.Base(p) == "x" && s.holdGone.CompareAndSwap(true, false) {
			s.sawGone <- struct{}{}
			<-s.resume
		}
		return k, ok, wake, err
	}
	f.publish = func(notified time.Time, _ bool, members []member[Key], _ error) {
		e := entry{notified: !notified.IsZero(), keys: map[string]string{}}
		for _, m := range members {
			e.keys[m.name] = m.v.Value
		}
		s.entries <- e
		s.mu.Lock()
		gate := s.gate
		s.mu.Unlock()
		<-gate
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		s.open()
		s.release()
		<-done
	})
	return s
}

// await reads publishes until one for which ok holds, and fails the test
// if none comes within the bound.
func (s *staged) await(t *testing.T, within time.Duration, what string, ok func(entry) bool) {
	t.Helper()
	deadline := time.After(within)
	var last entry
	for {
		select {
		case e := <-s.entries:
			if ok(e) {
				return
			}
			last = e
		case <-deadline:
			t.Fatalf("%s: not published within %s; the last publish had keys %v", what, within, last.keys)
		}
	}
}

// drain forgets the publishes so far.
func (s *staged) drain() {
	for {
		select {
		case <-s.entries:
		default:
			return
		}
	}
}

// create makes the znode p with data.
func create(t *testing.T, rz *recoverable.RecoverableZookeeper, p, data string) {
	t.Helper()
	if _, err := rz.Create(context.Background(), p, []byte(data), zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
}
