package sequence_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// counterFixture is a ModeCounter sequence on the shared server, under a
// root and an election of the test's own.
func counterFixture(t *testing.T, name string, block int64) (*fixture, *recoverable.RecoverableZookeeper) {
	t.Helper()
	root := zktest.Path(t)
	f := &fixture{cluster: zktest.Shared(t), opts: []sequence.Option{sequence.WithBlock(block), sequence.WithRoot(root),
		sequence.WithElection(root + "-persist"), sequence.WithMode(sequence.ModeCounter)}}
	var err error
	if f.store, err = sequence.OpenFileStore(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin := f.connect(t, f.cluster.Servers())
	if err := sequence.Create(ctx, admin, name, 1, f.opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sequence.Delete(context.Background(), admin, name, f.opts...) }) // the server is shared
	return f, admin
}

// Workers on sessions of their own, and goroutines sharing one, take IDs
// and batches from a counter while the leader raises its limit a small
// block at a time: no ID is handed out twice, every one lies below the
// stored reservation, and the only refused writes are those a raise made
// stale, a few per raise at most.
func TestCounterWorkersShareNoID(t *testing.T) {
	t.Parallel()
	f, admin := counterFixture(t, "ids", 40)
	p := f.persist(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got ranges
	var wg sync.WaitGroup
	var seqs []*sequence.Sequence
	stop := time.Now().Add(2 * time.Second)
	for w := range 5 {
		seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "ids", f.opts...)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
		for g := range 1 + w/4*7 { // the last worker: eight goroutines on one Sequence
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := int64(1 + (w+g)%3*2); time.Now().Before(stop); {
					first, err := seq.NextN(ctx, k)
					if err != nil {
						t.Errorf("worker %d: %v", w, err)
						return
					}
					got.add(first, k)
				}
			}()
		}
	}
	wg.Wait()
	ids := got.check(t, 1, 1<<40) // holes are allowed: the versions burnt at the limit
	var st sequence.Stats
	for _, s := range seqs {
		st.Conflicts += s.Stats().Conflicts
		st.Burnt += s.Stats().Burnt
	}
	stored, err := f.store.Reserved(ctx, "ids")
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	for _, g := range got.got {
		if g[0]+g[1] > stored.Value {
			t.Errorf("IDs %d..%d handed out, at or past the stored reservation %d", g[0], g[0]+g[1]-1, stored.Value)
		}
		last = max(last, g[0]+g[1]-1)
	}
	if int64(len(seqs))*p.Raises() < st.Conflicts {
		t.Errorf("%d refused writes for %d raises and %d workers: the workers conflict with each other", st.Conflicts, p.Raises(), len(seqs))
	}
	infos, err := sequence.List(ctx, admin, f.opts...)
	if err != nil || len(infos) != 1 || infos[0].Mode != sequence.ModeCounter || infos[0].Next <= last {
		t.Errorf("List: %+v, %v; want the counter, its next ID above the last handed out, %d", infos, err, last)
	}
	if ids < 100 || p.Raises() < 2 {
		t.Errorf("%d IDs handed out and %d raises: the test exercised too little", ids, p.Raises())
	}
	t.Logf("%d IDs handed out, %d raises, %d refused writes, %d IDs burnt at the limit", ids, p.Raises(), st.Conflicts, st.Burnt)
}

// With no leader to raise it, the limit stays where it is: workers take
// the IDs below it, each once, and none at or past it, although their
// blind writes take the counter's versions past it.
func TestCounterHandsOutNothingAtOrPastTheLimit(t *testing.T) {
	t.Parallel()
	f, admin := counterFixture(t, "capped", 5)
	f.opts = append(f.opts, sequence.WithWait(300*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := f.persist(t)
	for {
		infos, err := sequence.List(ctx, admin, f.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) == 1 && infos[0].Limit == 11 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.Close() // the limit stays at 11
	var mu sync.Mutex
	var ids []int64
	var burnt int64
	var wg sync.WaitGroup
	for range 3 {
		seq, _ := sequence.Open(f.connect(t, f.cluster.Servers()), "capped", f.opts...)
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					id, err := seq.Next(ctx)
					if errors.Is(err, sequence.ErrNoRoom) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					ids = append(ids, id)
					mu.Unlock()
				}
			}()
		}
		defer func() { burnt += seq.Stats().Burnt }()
	}
	wg.Wait()
	slices.Sort(ids)
	if want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; !slices.Equal(ids, want) {
		t.Fatalf("IDs %v below the limit 11; want %v", ids, want)
	}
}

// A sequence made before there were two modes has no mode in its znode,
// and its reservation's file none either: it is compare-and-set, its
// reservations stay in the old form, and Restore makes it anew as one.
func TestASequenceWithNoModeIsCompareAndSet(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	root := zktest.Path(t)
	opts := []sequence.Option{sequence.WithRoot(root), sequence.WithElection(root + "-persist"), sequence.WithBlock(10)}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	if err := admin.EnsurePath(ctx, root, admin.ACL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sequence.Delete(context.Background(), admin, "old", opts...) }) // the server is shared
	// As the sequence's znode and marker were written before.
	old := `{"next":5,"limit":5,"incarnation":"00112233aabbccdd","recent":["0123456789abcdef"]}`
	if _, err := admin.Conn().Create(root+"/old", []byte(old), 0, admin.ACL()); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Conn().Create(root+"/old/00112233aabbccdd", nil, 0, admin.ACL()); err != nil {
		t.Fatal(err)
	}
	store, err := sequence.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := sequence.NewPersister(ctx, zktest.Connect(t, cluster.Servers(), 4*time.Second), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := sequence.Open(zktest.Connect(t, cluster.Servers(), 4*time.Second), "old", opts...)
	for want := int64(5); want < 8; want++ {
		if id, err := seq.Next(ctx); id != want || err != nil {
			t.Fatalf("Next: %d, %v; want %d", id, err, want)
		}
	}
	p.Close()
	data, _, err := admin.Get(ctx, root+"/old")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil || raw["next"] != float64(8) || raw["base"] != nil {
		t.Errorf("the znode after three IDs: %s; want next 8 and no base: a compare-and-set", data)
	}
	if seq.Stats().Writes != 3 || seq.Stats().Burnt != 0 {
		t.Errorf("stats %+v: want three compare-and-sets", seq.Stats())
	}
	reserved, err := store.Reserved(ctx, "old")
	if err != nil || reserved.Mode != sequence.ModeCAS {
		t.Fatalf("the stored reservation: %+v, %v; want one of compare-and-set", reserved, err)
	}
	if err := sequence.Delete(ctx, admin, "old", opts...); err != nil {
		t.Fatal(err)
	}
	if _, err := sequence.Restore(ctx, admin, store, opts...); err != nil {
		t.Fatal(err)
	}
	infos, err := sequence.List(ctx, admin, opts...)
	if err != nil || len(infos) != 1 || infos[0].Mode != sequence.ModeCAS || infos[0].Next != reserved.Value {
		t.Errorf("restored: %+v, %v; want compare-and-set at %d", infos, err, reserved.Value)
	}
}

// After a restore, and after a counter is deleted and made anew from 1,
// its IDs go on above every one handed out before.
func TestCounterAfterARestoreOrMadeAnewIsAboveEveryIDBefore(t *testing.T) {
	t.Parallel()
	f, admin := counterFixture(t, "again", 20)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := f.persist(t)
	take := func(n int) (lo, hi int64) {
		seq, _ := sequence.Open(f.connect(t, f.cluster.Servers()), "again", f.opts...)
		lo = 1 << 62
		for range n {
			id, err := seq.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi = min(lo, id), max(hi, id)
		}
		return lo, hi
	}
	_, before := take(50)
	p.Close()
	if err := sequence.Delete(ctx, admin, "again", f.opts...); err != nil {
		t.Fatal(err)
	}
	done, err := sequence.Restore(ctx, admin, f.store, f.opts...)
	if err != nil || len(done) != 1 || done[0].Action != sequence.Created {
		t.Fatalf("Restore: %+v, %v", done, err)
	}
	if infos, err := sequence.List(ctx, admin, f.opts...); err != nil || infos[0].Mode != sequence.ModeCounter {
		t.Fatalf("restored as %+v, %v; want a counter", infos, err)
	}
	p = f.persist(t)
	lo, after := take(30)
	if lo <= before {
		t.Fatalf("after the restore: ID %d, not above %d handed out before", lo, before)
	}
	if err := sequence.Delete(ctx, admin, "again", f.opts...); err != nil {
		t.Fatal(err)
	}
	if err := sequence.Create(ctx, admin, "again", 1, f.opts...); err != nil {
		t.Fatal(err)
	}
	if lo, _ := take(5); lo <= after {
		t.Fatalf("made anew from 1: ID %d, not above %d handed out before", lo, after)
	}
	p.Close()
}

// A worker that read a counter made anew by hand, at version 0 and with
// no room yet, waits for a change; meanwhile the persistence leader makes
// the znode anew above the earlier incarnation's reservation, again at
// version 0, with room. The worker's wait reads that new znode at the
// version it read before: a wait for another version would sleep through
// it, until the wait ran out. The proxy holds the answer to the worker's
// read until the leader has made the znode anew, so that the wait begins
// after it, every time.
func TestAWorkerWaitingOnACounterSeesItMadeAnewAtTheSameVersion(t *testing.T) {
	t.Parallel()
	f, admin := counterFixture(t, "anew", 20)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := f.persist(t)
	seq, _ := sequence.Open(f.connect(t, f.cluster.Servers()), "anew", f.opts...)
	before, err := seq.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if err := sequence.Delete(ctx, admin, "anew", f.opts...); err != nil {
		t.Fatal(err)
	}
	if err := sequence.Create(ctx, admin, "anew", 1, f.opts...); err != nil {
		t.Fatal(err)
	}
	proxy := zktest.NewProxy(t, f.cluster.Server(0))
	worker, err := sequence.Open(f.connect(t, []string{proxy.Addr()}), "anew", f.opts...)
	if err != nil {
		t.Fatal(err)
	}
	read, release := proxy.HoldReply(faultproxy.OpGetData)
	defer release()
	got := make(chan error, 1)
	var id int64
	go func() {
		var err error
		id, err = worker.Next(ctx)
		got <- err
	}()
	select {
	case <-read: // the worker's read of the znode made by hand, answered
	case <-ctx.Done():
		t.Fatal("the worker never read the sequence")
	}
	p = f.persist(t)
	defer p.Close()
	for {
		infos, err := sequence.List(ctx, admin, f.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) == 1 && infos[0].Limit > 1 {
			break // made anew, with room
		}
		time.Sleep(10 * time.Millisecond)
	}
	release()
	if err := <-got; err != nil {
		t.Fatalf("Next = %v once the leader made the counter anew with room", err)
	}
	if id <= before {
		t.Fatalf("ID %d after the counter was made anew, not above %d handed out before", id, before)
	}
}
