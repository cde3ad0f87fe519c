package sequence

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// Long before its data version would wrap, the leader makes a sequence's
// znode anew (here every 25 writes rather than every two billion), while
// workers take IDs (and wait for it, at that version, as at the limit):
// they go on from the same next ID, every ID is handed out once, with no
// hole, and one marker is left, the new incarnation's. The new znode keeps
// the ACL the operator gave the old one, not the leader's default.
func TestTheZnodeIsMadeAnewBeforeItsVersionWraps(t *testing.T) {
	// Not parallel: rolloverAt is the package's, and parallel tests wait
	// until this one is done.
	defer func(at int32) { rolloverAt = at }(rolloverAt)
	rolloverAt = 25
	cluster := zktest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	store := tempStore(t)
	opts := []Option{WithBlock(50)}
	if err := Create(ctx, admin, "wrap", 1, opts...); err != nil {
		t.Fatal(err)
	}
	_, first, err := admin.Get(ctx, DefaultRoot+"/wrap")
	if err != nil {
		t.Fatal(err)
	}
	operators := append(zk.WorldACL(zk.PermAll), zk.DigestACL(zk.PermRead, "auditor", "secret")...)
	if _, err := admin.Conn().SetACL(DefaultRoot+"/wrap", operators, -1); err != nil {
		t.Fatal(err)
	}
	p, err := NewPersister(ctx, zktest.Connect(t, cluster.Servers(), 4*time.Second), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	// Enough IDs for the znode to be made anew at least twice (each takes
	// one write, and the limit's raises take some), however slow the machine.
	want := 3 * int(rolloverAt)
	ids := takeIDs(ctx, t, cluster.Servers(), "wrap", 3, want, opts)
	slices.Sort(ids)
	for i, id := range ids {
		if id != int64(i)+1 {
			t.Fatalf("ID %d at place %d: handed out twice, or a hole (%d IDs)", id, i, len(ids))
		}
	}
	_, now, err := admin.Get(ctx, DefaultRoot+"/wrap")
	if err != nil {
		t.Fatal(err)
	}
	markers, err := admin.Children(ctx, DefaultRoot+"/wrap")
	if err != nil {
		t.Fatal(err)
	}
	if now.Czxid == first.Czxid || len(ids) < want || len(markers) != 1 {
		t.Fatalf("after %d IDs: the znode was made at zxid %d, first at %d, now at version %d, with markers %v",
			len(ids), now.Czxid, first.Czxid, now.Version, markers)
	}
	for _, path := range []string{DefaultRoot + "/wrap", DefaultRoot + "/wrap/" + markers[0]} {
		if acl, _, err := admin.GetACL(ctx, path); err != nil || !slices.Equal(acl, operators) {
			t.Errorf("%s made anew with ACL %v, %v; want the operator's %v", path, acl, err, operators)
		}
	}
	if now.Version > rolloverAt+3 {
		t.Errorf("the znode is at version %d, past %d: it was not made anew in time", now.Version, rolloverAt)
	}
}

// takeIDs has workers, each on a session of its own, take IDs of the
// sequence name until want are taken in all, and returns them.
func takeIDs(ctx context.Context, t *testing.T, servers []string, name string, workers, want int, opts []Option) []int64 {
	t.Helper()
	var mu sync.Mutex
	var ids []int64
	var wg sync.WaitGroup
	for range workers {
		seq, _ := Open(zktest.Connect(t, servers, 4*time.Second), name, opts...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				enough := len(ids) >= want
				mu.Unlock()
				if enough {
					return
				}
				id, err := seq.Next(ctx)
				if err != nil {
					t.Errorf("Next: %v", err)
					return
				}
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ids
}

// A counter's version wraps too, and sooner: one version per ID. Long
// before (here every 25 versions), the leader makes the counter anew under
// a new incarnation, its base at the limit, while workers take IDs (and
// burn the versions they wrote past it): every ID is handed out once, each
// new counter's IDs above the old one's, and no counter goes far past the
// threshold.
func TestTheCounterIsMadeAnewBeforeItsVersionWraps(t *testing.T) {
	// Not parallel: rolloverAt is the package's.
	defer func(at int32) { rolloverAt = at }(rolloverAt)
	rolloverAt = 25
	cluster := zktest.Shared(t)
	root := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	opts := []Option{WithBlock(10), WithRoot(root), WithElection(root + "-persist"), WithMode(ModeCounter)}
	if err := Create(ctx, admin, "wrap", 1, opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Delete(context.Background(), admin, "wrap", opts...) }) // the server is shared
	p, err := NewPersister(ctx, zktest.Connect(t, cluster.Servers(), 4*time.Second), tempStore(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	st, _, _, err := read(ctx, admin, root+"/wrap")
	if err != nil {
		t.Fatal(err)
	}
	ids := takeIDs(ctx, t, cluster.Servers(), "wrap", 3, 4*int(rolloverAt), opts)
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatalf("an ID handed out twice among %v", ids)
	}
	now, _, cver, err := read(ctx, admin, root+"/wrap")
	if err != nil {
		t.Fatal(err)
	}
	if now.Incarnation == st.Incarnation || now.Base <= 1 {
		t.Errorf("after %d IDs the counter is still the first: %+v", len(ids), now)
	}
	if cver > rolloverAt+3 { // each worker writes once at most past it, and burns what it got
		t.Errorf("the counter is at version %d, past %d: it was not made anew in time", cver, rolloverAt)
	}
}
