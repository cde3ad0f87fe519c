package sequence

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// TestASequenceMadeAnewWhileItsMaintainerFindsItGone stages the one
// schedule in which a maintainer that found its sequence deleted, and set
// no watch on its path, could lose the name for good. The sequence is made
// anew right after the maintainer read "no such znode". The leader lists
// the root after that and finds the name there, with the old maintainer
// still in its place, so it starts no new one. Here the test plays that
// listing: it starts the maintainer and never lists again. The proxy
// holds the answer to the maintainer's read until the name is made anew.
// The maintainer must then take the name up again and raise the new
// sequence's limit.
func TestASequenceMadeAnewWhileItsMaintainerFindsItGone(t *testing.T) {
	t.Parallel()
	const session = 4 * time.Second
	within := session + electiontest.Slack
	server := zktest.Shared(t).Server(0)
	proxy := zktest.NewProxy(t, server)
	admin := zktest.Connect(t, []string{server}, session)
	opts := []Option{WithRoot(zktest.Path(t)), WithBlock(10)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Create(ctx, admin, "x", 0, opts...); err != nil {
		t.Fatal(err)
	}
	tm := listedOnce(t, zktest.Connect(t, []string{proxy.Addr()}, session), opts, "x")
	p := tm.p.o.root + "/x"
	limitAbove(t, admin, p, 0, within)
	// Its watch after the raise: the maintainer waits on it now.
	awaitWatched(t, server, p, within)

	answered, release := proxy.HoldReply(zktest.OpGetData)
	defer release()
	if err := Delete(ctx, admin, "x", opts...); err != nil {
		t.Fatal(err)
	}
	select {
	case <-answered: // the server answered "no such znode"
	case <-time.After(within):
		t.Fatalf("the maintainer did not read %s again within %s of its deletion", p, within)
	}
	if err := Create(ctx, admin, "x", 500, opts...); err != nil {
		t.Fatal(err)
	}
	release()
	limitAbove(t, admin, p, 500, within)
}

// listedOnce is a leader's term on rz that has listed the root once and
// found names there: a maintainer runs for each, until the test ends.
// The term's election znode, which each raise checks, is one the test
// makes.
func listedOnce(t *testing.T, rz *recoverable.RecoverableZookeeper, opts []Option, names ...string) *term {
	t.Helper()
	o, err := newOptions(rz, opts)
	if err != nil {
		t.Fatal(err)
	}
	fence, err := rz.Create(context.Background(), o.root+"-leader", nil, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	p := &Persister{rz: rz, store: tempStore(t), o: o, log: o.log, failed: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	tm := &term{p: p, cancel: cancel, done: make(chan struct{}), node: fence, maintainers: map[string]context.CancelFunc{}}
	tm.reconcile(ctx, names)
	t.Cleanup(func() {
		cancel()
		tm.wg.Wait()
	})
	return tm
}

// limitAbove waits until the sequence at p has a limit above start: a
// leader raised it.
func limitAbove(t *testing.T, rz *recoverable.RecoverableZookeeper, p string, start int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	var last state
	for time.Now().Before(deadline) {
		if data, _, err := rz.Get(context.Background(), p); err == nil {
			if last, err = decodeState(data); err == nil && last.Limit > start {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: its limit was not raised above %d within %s (the last read had next %d, limit %d)", p, start, within, last.Next, last.Limit)
}

// awaitWatched waits until a session holds a data watch on p at addr.
func awaitWatched(t *testing.T, addr, p string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		bySession, err := fourletter.Watches(ctx, addr)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, paths := range bySession {
			if slices.Contains(paths, p) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no watch on %s within %s", p, within)
}
