package sequence_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// fixture is a sequence on a real server, with a persistence leader.
type fixture struct {
	cluster *zktest.Cluster
	opts    []sequence.Option
	store   *sequence.FileStore
}

func newFixture(t *testing.T, name string, start int64, block int64) *fixture {
	t.Helper()
	f := &fixture{cluster: zktest.Start(t, 1)}
	f.opts = []sequence.Option{sequence.WithBlock(block)}
	var err error
	if f.store, err = sequence.OpenFileStore(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := sequence.Create(ctx, f.connect(t, f.cluster.Servers()), name, start, f.opts...); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) connect(t *testing.T, servers []string) *recoverable.RecoverableZookeeper {
	return zktest.Connect(t, servers, 4*time.Second)
}

func (f *fixture) persist(t *testing.T) *sequence.Persister {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := sequence.NewPersister(ctx, f.connect(t, f.cluster.Servers()), f.store, f.opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// ranges collects the IDs handed out, as first and count, from any
// goroutine, and checks them at the end.
type ranges struct {
	mu  sync.Mutex
	got [][2]int64
}

func (r *ranges) add(first, k int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, [2]int64{first, k})
}

// check asserts that no ID was handed out twice, and that the IDs from
// start on have no hole wider than maxGap.
func (r *ranges) check(t *testing.T, start, maxGap int64) (ids int64) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	sorted := slices.Clone(r.got)
	slices.SortFunc(sorted, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	next := start
	for _, g := range sorted {
		if g[0] < next {
			t.Fatalf("IDs %d..%d handed out twice (a range before them reached %d)", g[0], next-1, next-1)
		}
		if gap := g[0] - next; gap > maxGap {
			t.Errorf("a hole of %d IDs before %d (at most %d allowed)", gap, g[0], maxGap)
		}
		next = g[0] + g[1]
		ids += g[1]
	}
	return ids
}

// Eight workers, each on its own session, take IDs and batches of IDs
// as fast as they can from one sequence, while the persistence leader
// raises the limit a small block at a time, so that they often wait for
// it. Every ID is handed out once, with no holes, and the store's
// reservation is above them all.
func TestWorkersNeverShareAnID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "ids", 1, 40)
	p := f.persist(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got ranges
	var wg sync.WaitGroup
	stop := time.Now().Add(3 * time.Second)
	for w := range 8 {
		seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "ids", f.opts...)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int64(1 + w%3*4); time.Now().Before(stop); {
				first, err := seq.NextN(ctx, k)
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				got.add(first, k)
			}
		}()
	}
	wg.Wait()
	ids := got.check(t, 1, 0)
	stored, err := f.store.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stored["ids"].Value <= ids {
		t.Errorf("the store's reservation %d is not above the %d IDs handed out", stored["ids"].Value, ids)
	}
	if ids < 100 || p.Raises() < 2 {
		t.Errorf("%d IDs handed out and %d raises: the test exercised too little", ids, p.Raises())
	}
	t.Logf("%d IDs handed out, %d raises of the limit", ids, p.Raises())
}

// Without a persistence process, nobody hands out an ID: the limit stays
// at the start, and Next says why after its wait.
func TestNoPersisterNoIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "idle", 5, 10)
	seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "idle", append(f.opts, sequence.WithWait(500*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = seq.Next(context.Background())
	if !errors.Is(err, sequence.ErrNoRoom) {
		t.Fatalf("Next without a persister: %v, want ErrNoRoom", err)
	}
	if _, err := sequence.Open(f.connect(t, f.cluster.Servers()), "no/such"); !errors.Is(err, sequence.ErrInvalid) {
		t.Errorf("Open with a bad name: %v", err)
	}
	other, _ := sequence.Open(f.connect(t, f.cluster.Servers()), "missing", f.opts...)
	if _, err := other.Next(context.Background()); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("Next on a missing sequence: %v", err)
	}
	if _, err := seq.NextN(context.Background(), 0); !errors.Is(err, sequence.ErrInvalid) {
		t.Errorf("NextN(0): %v", err)
	}
}

// A sequence created while the leader runs gets a reservation and a
// limit without a restart: the article's dynamic node detection. One that
// is deleted stops being maintained.
func TestNewSequencesArePickedUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "first", 0, 10)
	p := f.persist(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admin := f.connect(t, f.cluster.Servers())
	waitLimit := func(name string, above int64) {
		t.Helper()
		for ctx.Err() == nil {
			infos, err := sequence.List(ctx, admin, f.opts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range infos {
				if in.Name == name && in.Limit > above {
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s's limit never rose above %d", name, above)
	}
	waitLimit("first", 0)
	if err := sequence.Create(ctx, admin, "later", 500, f.opts...); err != nil {
		t.Fatal(err)
	}
	waitLimit("later", 500)
	stored, err := f.store.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stored["later"].Value < 520 {
		t.Errorf("stored %v, want later's reservation at two blocks above 500", stored)
	}
	if err := sequence.Delete(ctx, admin, "later", f.opts...); err != nil {
		t.Fatal(err)
	}
	if err := sequence.Delete(ctx, admin, "later", f.opts...); !errors.Is(err, sequence.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if p.Refused() != 0 {
		t.Errorf("%d raises refused to the one leader", p.Refused())
	}
}

// A write whose answer is lost: the proxy holds the server's replies back,
// and resets the connection the moment the server has applied our
// compare-and-set.
// The client sends it again, meets a changed version, and reads its own
// token in the znode: the IDs are ours, handed out once, with no hole.
// When too many writes came in between to tell, the IDs are skipped,
// loudly, and still never handed out twice. A counter's write, sent again,
// succeeds again: its versions are ours, and those of the first attempt
// are handed out to nobody, a hole of one ID, with no token and nothing
// skipped by us.
func TestLostSetReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		others int   // other workers' allocations while ours hangs
		skip   int64 // IDs ours skips
		hole   int64 // the widest hole
	}{{"landed", 0, 0, 0}, {"too many writes since", 40, 1, 1}, {"counter", 3, 0, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			var f *fixture
			if tc.name == "counter" {
				f, _ = counterFixture(t, "lost", 100) // on the shared server
			} else {
				f = newFixture(t, "lost", 1, 100)
			}
			f.persist(t)
			proxy := zktest.NewProxy(t, f.cluster.Server(0))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ours, _ := sequence.Open(f.connect(t, []string{proxy.Addr()}), "lost", f.opts...)
			theirs, _ := sequence.Open(f.connect(t, f.cluster.Servers()), "lost", f.opts...)
			var got ranges
			id, err := ours.Next(ctx) // the next Next goes straight to the set
			if err != nil {
				t.Fatal(err)
			}
			got.add(id, 1)

			loseReply(ctx, t, proxy, ours, theirs, tc.others, &got)
			if s := ours.Stats(); s.Skipped != tc.skip || s.Handed != 2 {
				t.Errorf("skipped %d IDs and handed out %d, want %d and 2", s.Skipped, s.Handed, tc.skip)
			}
			got.check(t, 1, tc.hole)
		})
	}
}

// loseReply has ours, on a session through proxy, take an ID whose
// write's answer is lost: the proxy holds the server's replies back, and
// resets the connection the moment the server has applied our multi (a
// compare-and-set, or a counter's). Meanwhile theirs takes others IDs.
// Every ID goes to got.
func loseReply(ctx context.Context, t *testing.T, proxy *zktest.Proxy, ours, theirs *sequence.Sequence, others int, got *ranges) {
	t.Helper()
	proxy.SetReplyLatency(time.Hour)
	applied := proxy.NotifyReply(zktest.OpMulti)
	done := make(chan error, 1)
	go func() {
		id, err := ours.Next(ctx)
		if err == nil {
			got.add(id, 1)
		}
		done <- err
	}()
	<-applied
	proxy.Reset()
	for range others {
		id, err := theirs.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got.add(id, 1)
	}
	proxy.SetReplyLatency(0)
	proxy.Restore()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A sequence made anew under a name whose reservation is in the store (as
// after a loss of ZooKeeper's data, when someone runs create instead of
// restore, or after a delete): the leader sees a reservation of another
// incarnation above the new next ID, and moves next up to it. No ID of
// the old sequence is handed out again.
func TestMadeAnewStartsAboveTheOldReservation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "again", 1, 10)
	f.persist(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admin := f.connect(t, f.cluster.Servers())
	seq, _ := sequence.Open(f.connect(t, f.cluster.Servers()), "again", f.opts...)
	var last int64
	for range 25 {
		id, err := seq.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		last = id
	}
	stored, err := f.store.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old := stored["again"]
	if err := sequence.Delete(ctx, admin, "again", f.opts...); err != nil {
		t.Fatal(err)
	}
	if err := sequence.Create(ctx, admin, "again", 1, f.opts...); err != nil {
		t.Fatal(err)
	}
	seq, _ = sequence.Open(f.connect(t, f.cluster.Servers()), "again", f.opts...)
	id, err := seq.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id <= last || id < old.Value {
		t.Fatalf("the new sequence handed out %d; the old one reached %d, with a reservation of %d", id, last, old.Value)
	}
	now, _ := f.store.All(ctx)
	if now["again"].Incarnation == old.Incarnation || now["again"].Value <= old.Value {
		t.Errorf("the store holds %+v, after %+v", now["again"], old)
	}
}
