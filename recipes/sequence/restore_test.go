package sequence

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// A partial loss can roll ZooKeeper back to a lagging server's state: the
// sequence's znode is older, at a lower version, but of the same
// incarnation. Restore raises it to the stored reservation. A worker that
// still caches the state it wrote before the loss, at the very version the
// raise produced, must not write over the raised state: its next ID is
// above the reservation, as every ID after a restore must be.
func TestRestoreRaisingARolledBackSequenceMakesANewIncarnation(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	store := tempStore(t)
	const name = "rolledback"
	path := DefaultRoot + "/" + name
	opts := []Option{WithBlock(1000)}
	if err := Create(ctx, admin, name, 1, opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Delete(context.Background(), admin, name, opts...) })
	p, err := NewPersister(ctx, zktest.Connect(t, cluster.Servers(), 4*time.Second), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	worker, _ := Open(zktest.Connect(t, cluster.Servers(), 4*time.Second), name, opts...)
	worker.trustCache = time.Hour // the race of a cached state with a new znode, which takes a round trip, made to last
	for range 10 {
		if _, err := worker.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	reserved, err := store.Reserved(ctx, name)
	if err != nil {
		t.Fatal(err)
	}

	// The rollback: the same incarnation, five IDs back, one version
	// below the worker's cached one.
	rolled := *worker.cached
	rolled.Next -= 5
	if err := admin.Delete(ctx, rolled.marker(path), -1); err != nil {
		t.Fatal(err)
	}
	if err := admin.Delete(ctx, path, -1); err != nil {
		t.Fatal(err)
	}
	if err := create(ctx, admin, path, rolled, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for v := int32(0); v < worker.ver-1; v++ {
		if _, err := admin.Set(ctx, path, rolled.encode(), v); err != nil {
			t.Fatal(err)
		}
	}

	restored, err := Restore(ctx, admin, store, opts...)
	if err != nil || len(restored) != 1 || restored[0].Action != Raised {
		t.Fatalf("Restore: %+v, %v; want %s raised", restored, err, name)
	}
	p2, err := NewPersister(ctx, zktest.Connect(t, cluster.Servers(), 4*time.Second), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	id, err := worker.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id < reserved.Value {
		t.Fatalf("after the restore the worker handed out %d, below the reservation %d", id, reserved.Value)
	}
}
