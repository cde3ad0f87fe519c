package sequence

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// tempStore is a FileStore in a folder of the test's own.
func tempStore(t *testing.T) *FileStore {
	t.Helper()
	store, err := OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// A worker holds the state its last write left, with that znode's
// version. The sequence is deleted and made anew, and the new znode
// reaches the very same version. The worker's next compare-and-set names
// the old incarnation's marker, which is gone, so it fails as a whole:
// the worker reads again and takes an ID above the old reservation,
// instead of writing the old state over the new one.
func TestACachedVersionOfAnEarlierIncarnationNeverWrites(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	store := tempStore(t)
	// A block so large that no raise comes between the allocations below:
	// each one moves the version by exactly one.
	opts := []Option{WithBlock(1000)}
	if err := Create(ctx, admin, "aba", 1, opts...); err != nil {
		t.Fatal(err)
	}
	p, err := NewPersister(ctx, zktest.Connect(t, cluster.Servers(), 4*time.Second), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	worker, _ := Open(zktest.Connect(t, cluster.Servers(), 4*time.Second), "aba", opts...)
	worker.trustCache = time.Hour // the race of a cached state with a new znode, which takes a round trip, made to last
	for range 10 {
		if _, err := worker.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cachedVer := worker.ver
	old, err := store.Reserved(ctx, "aba")
	if err != nil {
		t.Fatal(err)
	}

	if err := Delete(ctx, admin, "aba", opts...); err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, admin, "aba", 1, opts...); err != nil {
		t.Fatal(err)
	}
	// Bring the new znode to the worker's cached version, with another
	// worker's allocations.
	other, _ := Open(zktest.Connect(t, cluster.Servers(), 4*time.Second), "aba", opts...)
	for {
		_, stat, err := admin.Get(ctx, DefaultRoot+"/aba")
		if err != nil {
			t.Fatal(err)
		}
		if stat.Version == cachedVer {
			break
		}
		if stat.Version > cachedVer {
			t.Fatalf("the new znode passed version %d (at %d) before the test could stop it there", cachedVer, stat.Version)
		}
		if _, err := other.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	id, err := worker.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id < old.Value {
		t.Fatalf("the worker with the old incarnation's version handed out %d, below the old reservation %d", id, old.Value)
	}
}

// When the leader must first move a sequence made anew above the old
// incarnation's reservation, it changes nothing in the store before
// ZooKeeper has taken that move: a leader replaced in between (its fenced
// write refused) leaves the old reservation, and its incarnation, for its
// successor to see.
func TestTheOldIncarnationStaysStoredUntilZooKeeperMoved(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rz := zktest.Connect(t, cluster.Servers(), 2*time.Second)
	store := tempStore(t)
	if _, err := store.Raise(ctx, "anew", Reservation{500, "0ld", ModeCAS}); err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, rz, "anew", 1); err != nil {
		t.Fatal(err)
	}
	o, _ := newOptions(rz, []Option{WithBlock(10)})
	p := &Persister{rz: rz, store: store, o: o, log: o.log}
	data, stat, err := rz.Get(ctx, DefaultRoot+"/anew")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := decodeState(data)
	stale := &term{p: p, node: "/no-such-election-znode"}
	if err := stale.raise(ctx, "anew", DefaultRoot+"/anew", st, stat.Version, st.Next); !errors.Is(err, errNotLeader) {
		t.Fatalf("the replaced leader's raise: %v", err)
	}
	if got, _ := store.Reserved(ctx, "anew"); got != (Reservation{500, "0ld", ModeCAS}) {
		t.Fatalf("the store holds %+v: the old reservation was replaced before ZooKeeper moved", got)
	}

	live, err := rz.CreateEphemeral(ctx, "/live-leader", nil, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&term{p: p, node: live}).raise(ctx, "anew", DefaultRoot+"/anew", st, stat.Version, st.Next); err != nil {
		t.Fatal(err)
	}
	data, _, _ = rz.Get(ctx, DefaultRoot+"/anew")
	if now, _ := decodeState(data); now.Next != 500 || now.Limit != 500 {
		t.Fatalf("after the live leader's move: next %d, limit %d; want both at the old reservation, 500", now.Next, now.Limit)
	}
}
