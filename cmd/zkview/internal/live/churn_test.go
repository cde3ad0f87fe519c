package live

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// churned is how many names come and go in each family: enough that a
// watch left behind by each would stand out from the few zkview needs.
const churned = 40

// TestChurnedNamesLeaveNoWatchBehind follows a configuration and the
// sequences while names come and go in each, as they do under a config
// path whose keys carry a date. ZooKeeper keeps a watch until it fires,
// and go-zookeeper 1.0.4 cannot remove one: a watch on a name that never
// comes back would stay on the server for good, and the client would send
// it again at every reconnect. So the server's watches (wchs) must be as
// many after the churn, and after a reconnect, as zkview needs then: one
// on each child that exists (and one on the missing persistence
// election). And every name made anew shows on the board with its last
// value.
func TestChurnedNamesLeaveNoWatchBehind(t *testing.T) {
	t.Parallel()
	const session = 4 * time.Second
	within := session + electiontest.Slack
	server := zktest.Start(t, 1).Server(0)
	proxy := zktest.NewProxy(t, server)
	admin := zktest.Connect(t, []string{server}, session)
	viewer := zktest.Connect(t, []string{proxy.Addr()}, session)
	const base, root, persist = "/churn-config", "/churn-sequences", "/churn-persist"
	kins := []kin{configKin(admin, base), sequencesKin(admin, root)}
	for _, p := range []string{base, root} {
		if err := admin.EnsurePath(context.Background(), p, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	hub := followed(t, viewer, Sources{Servers: []string{server}, Config: Panel{Path: base, Named: true},
		Sequences: Panel{Path: root, Named: true}, Persistence: persist})

	// Before the churn: a data watch on each family's one key, and an
	// exists watch on the missing persistence election. The servers count
	// no children watches in wchs: those on the parents are not in it.
	const missingParents = 1
	want := missingParents + len(kins)
	for _, k := range kins {
		k.set(t, hub, within, "stay", 1)
	}
	if got := zktest.AwaitWatches(t, server, within, func(c zktest.WatchCount) bool { return c.Total == want }); got.Total != want {
		t.Fatalf("before any churn the server holds %d watches, want %d: one on each key, one on the missing election", got.Total, want)
	}
	for i := range churned {
		for _, k := range kins {
			name := fmt.Sprintf("n-%d", i)
			k.set(t, hub, within, name, int64(i))
			k.drop(t, hub, within, name)
		}
	}
	for _, k := range kins {
		k.set(t, hub, within, "n-0", 99) // a name that came and went before
		k.flip(t, hub, within, "flip")   // one made and removed 20 times in a row
	}
	want = missingParents + 3*len(kins)
	got := zktest.AwaitWatches(t, server, within, func(c zktest.WatchCount) bool { return c.Total == want })
	t.Logf("after the churn the server holds %d watches", got.Total)
	if got.Total != want {
		left := zktest.WatchesLeftBehind(t, server, func(p string) bool {
			ok, _, err := admin.Exists(context.Background(), p)
			return ok || err != nil || p == persist // the election's watch is for its creation
		})
		t.Errorf("after %d names came and went in each of %d families, the server holds %d watches, want %d (%d before the churn, and one on each name made anew); %d on names that do not exist: %v",
			churned, len(kins), got.Total, want, missingParents+len(kins), len(left), left)
	}
	reconnect(t, proxy, server, within, want)
}

// reconnect cuts zkview's connection and lets it connect again: the
// client then sends the server every watch it keeps, which must be the
// want that the server held before.
func reconnect(t *testing.T, proxy *zktest.Proxy, server string, within time.Duration, want int) {
	t.Helper()
	proxy.Reset()
	if got := zktest.AwaitWatches(t, server, within, func(c zktest.WatchCount) bool { return c.Total == 0 }); got.Total != 0 {
		t.Fatalf("the server kept %d watches of a connection that was reset", got.Total)
	}
	proxy.Restore()
	got := zktest.AwaitWatches(t, server, within, func(c zktest.WatchCount) bool { return c.Total >= want })
	if got.Total != want {
		t.Errorf("after a reconnect zkview set %d watches again, want the %d it held before", got.Total, want)
	} else {
		t.Logf("after a reconnect zkview set %d watches again", got.Total)
	}
}

// followed runs a hub on s with rz until the test ends.
func followed(t *testing.T, rz *recoverable.RecoverableZookeeper, s Sources) *Hub {
	t.Helper()
	hub := NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		hub.Run(ctx, rz, s)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return hub
}

// kin is one family on the board as the test drives it: how a child is
// made with a value and removed, and what the board shows of each child.
type kin struct {
	what   string
	create func(ctx context.Context, name string, v int64) error
	remove func(ctx context.Context, name string) error
	shown  func(Board) map[string]int64
}

// configKin is a configuration's keys under base; a key's value is v.
func configKin(admin *recoverable.RecoverableZookeeper, base string) kin {
	return kin{
		what: "configuration key",
		create: func(ctx context.Context, name string, v int64) error {
			_, err := admin.Create(ctx, base+"/"+name, []byte(strconv.FormatInt(v, 10)), zk.WorldACL(zk.PermAll))
			return err
		},
		remove: func(ctx context.Context, name string) error { return admin.Delete(ctx, base+"/"+name, -1) },
		shown: func(b Board) map[string]int64 {
			m := map[string]int64{}
			if b.Config != nil {
				for _, k := range b.Config.Keys {
					m[k.Name], _ = strconv.ParseInt(k.Value, 10, 64)
				}
			}
			return m
		},
	}
}

// sequencesKin is the sequences under root; a sequence starts at v.
func sequencesKin(admin *recoverable.RecoverableZookeeper, root string) kin {
	return kin{
		what: "sequence",
		create: func(ctx context.Context, name string, v int64) error {
			return sequence.Create(ctx, admin, name, v, sequence.WithRoot(root))
		},
		remove: func(ctx context.Context, name string) error {
			return sequence.Delete(ctx, admin, name, sequence.WithRoot(root))
		},
		shown: func(b Board) map[string]int64 {
			m := map[string]int64{}
			if b.Sequences != nil {
				for _, s := range b.Sequences.List {
					m[s.Name] = s.Next
				}
			}
			return m
		},
	}
}

// set makes name with v and waits for the board to show it.
func (k kin) set(t *testing.T, hub *Hub, within time.Duration, name string, v int64) {
	t.Helper()
	if err := k.create(context.Background(), name, v); err != nil {
		t.Fatalf("%s %s: %v", k.what, name, err)
	}
	k.await(t, hub, within, name, fmt.Sprintf("%d", v), func(b Board) bool { got, ok := k.shown(b)[name]; return ok && got == v })
}

// drop removes name and waits for the board to lose it.
func (k kin) drop(t *testing.T, hub *Hub, within time.Duration, name string) {
	t.Helper()
	if err := k.remove(context.Background(), name); err != nil {
		t.Fatalf("removing %s %s: %v", k.what, name, err)
	}
	k.await(t, hub, within, name, "gone", func(b Board) bool { _, ok := k.shown(b)[name]; return !ok })
}

// flip makes and removes name 20 times without waiting for the board,
// then makes it for good: the board must end with the last value.
func (k kin) flip(t *testing.T, hub *Hub, within time.Duration, name string) {
	t.Helper()
	ctx := context.Background()
	for v := range int64(20) {
		if err := errors.Join(k.create(ctx, name, v), k.remove(ctx, name)); err != nil {
			t.Fatalf("flipping %s %s: %v", k.what, name, err)
		}
	}
	k.set(t, hub, within, name, 1000)
}

// await polls the board until ok holds of it, and fails the test if it
// does not within the bound.
func (k kin) await(t *testing.T, hub *Hub, within time.Duration, name, want string, ok func(Board) bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok(hub.Board()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: the board shows %v after %s, want %s", k.what, name, k.shown(hub.Board()), within, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
