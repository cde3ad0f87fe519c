package sequence_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// namesGone is how many sequence names are made and deleted: a watch
// left behind by each would outnumber the leader's own several times.
const namesGone = 40

// TestChurnedSequencesLeaveNoWatchBehind runs a persistence leader while
// sequences of new names are made and deleted, as a service whose
// sequence names carry a date would see. The servers' watches must not
// grow with the names that went (zktest.WatchCount says why they would
// stay): after the churn, and again after the leader reconnects, they are
// one on the leader's election znode and one on each sequence that
// exists. A sequence made anew under an old name, or made and deleted
// many times in a row, has its limit raised again.
func TestChurnedSequencesLeaveNoWatchBehind(t *testing.T) {
	t.Parallel()
	const session = 4 * time.Second
	within := session + electiontest.Slack
	server := zktest.Start(t, 1).Server(0)
	proxy := zktest.NewProxy(t, server)
	admin := zktest.Connect(t, []string{server}, session)
	opts := []sequence.Option{sequence.WithBlock(10)}
	store, err := sequence.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := sequence.NewPersister(ctx, zktest.Connect(t, []string{proxy.Addr()}, session), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	c := churn{admin: admin, opts: opts, within: within}
	c.make(t, "keep", 0)

	const election = 1 // the leader's watch on its own election znode
	want := election + 1
	if got := zktest.AwaitWatches(t, server, within, func(w zktest.WatchCount) bool { return w.Total == want }); got.Total != want {
		t.Fatalf("before any churn the server holds %d watches, want %d: one on the leader's election znode, one on the sequence", got.Total, want)
	}
	for i := range namesGone {
		name := fmt.Sprintf("n-%d", i)
		c.make(t, name, int64(100*i))
		c.drop(t, name)
	}
	c.make(t, "n-0", 7) // a name that came and went before
	c.flip(t, "flip")   // one made and deleted 20 times in a row
	want = election + 3
	got := zktest.AwaitWatches(t, server, within, func(w zktest.WatchCount) bool { return w.Total == want })
	t.Logf("after the churn the server holds %d watches", got.Total)
	if got.Total != want {
		left := zktest.WatchesLeftBehind(t, server, func(p string) bool {
			ok, _, err := admin.Exists(context.Background(), p)
			return ok || err != nil
		})
		t.Errorf("after %d sequences came and went, the server holds %d watches, want %d (one on the election znode, one on each of the 3 sequences); %d on znodes that do not exist: %v",
			namesGone, got.Total, want, len(left), left)
	}
	proxy.Reset()
	if got := zktest.AwaitWatches(t, server, within, func(w zktest.WatchCount) bool { return w.Total == 0 }); got.Total != 0 {
		t.Fatalf("the server kept %d watches of a connection that was reset", got.Total)
	}
	proxy.Restore()
	if got := zktest.AwaitWatches(t, server, within, func(w zktest.WatchCount) bool { return w.Total == want }); got.Total != want {
		t.Errorf("after a reconnect the leader set %d watches again, want the %d it needs", got.Total, want)
	}
	c.raised(t, "n-0", 7) // still maintained after the reconnect
}

// churn makes and deletes sequences while a persistence leader runs.
type churn struct {
	admin  *recoverable.RecoverableZookeeper
	opts   []sequence.Option
	within time.Duration
}

// make creates name at start and waits until the leader raised its limit.
func (c churn) make(t *testing.T, name string, start int64) {
	t.Helper()
	if err := sequence.Create(context.Background(), c.admin, name, start, c.opts...); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	c.raised(t, name, start)
}

// drop deletes name.
func (c churn) drop(t *testing.T, name string) {
	t.Helper()
	if err := sequence.Delete(context.Background(), c.admin, name, c.opts...); err != nil {
		t.Fatalf("deleting %s: %v", name, err)
	}
}

// flip creates and deletes name 20 times without waiting for the leader,
// then creates it for good: the leader must maintain it then.
func (c churn) flip(t *testing.T, name string) {
	t.Helper()
	for range 20 {
		if err := sequence.Create(context.Background(), c.admin, name, 0, c.opts...); err != nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		c.drop(t, name)
	}
	c.make(t, name, 3)
}

// raised waits until name's limit is above start: the leader raised it
// ahead of any demand, as it does for every sequence it maintains.
func (c churn) raised(t *testing.T, name string, start int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), c.within)
	defer cancel()
	var last []sequence.Info
	for ctx.Err() == nil {
		infos, err := sequence.List(ctx, c.admin, c.opts...)
		for _, in := range infos {
			if in.Name == name && in.Limit > start {
				return
			}
		}
		if err == nil {
			last = infos
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s's limit was not raised above %d within %s: the sequences stand at %+v", name, start, c.within, last)
}
