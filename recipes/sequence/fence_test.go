package sequence

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// The fence itself: a term whose election znode has gone with its session
// (a leader that was frozen or cut off past its session, and replaced)
// stores its reservation, but ZooKeeper refuses its raise as a whole, and
// the sequence is not touched. The same raise with a live znode passes.
func TestRaiseOfAReplacedLeaderIsRefused(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	old := zktest.Connect(t, cluster.Servers(), 2*time.Second)
	rz := zktest.Connect(t, cluster.Servers(), 2*time.Second)
	if err := Create(ctx, rz, "fenced", 10); err != nil {
		t.Fatal(err)
	}
	if err := rz.EnsurePath(ctx, "/fence-test", zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	oldNode, err := old.CreateEphemeral(ctx, "/fence-test/old", nil, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	old.Close() // its session ends, and its ephemeral znode with it
	liveNode, err := rz.CreateEphemeral(ctx, "/fence-test/live", nil, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	store := tempStore(t)
	o, _ := newOptions(rz, []Option{WithBlock(5)})
	p := &Persister{rz: rz, store: store, o: o, log: o.log}
	read := func() (state, int32) {
		data, stat, err := rz.Get(ctx, DefaultRoot+"/fenced")
		if err != nil {
			t.Fatal(err)
		}
		st, err := decodeState(data)
		if err != nil {
			t.Fatal(err)
		}
		return st, stat.Version
	}

	st, ver := read()
	stale := &term{p: p, node: oldNode}
	if err := stale.raise(ctx, "fenced", DefaultRoot+"/fenced", st, ver, st.Next); !errors.Is(err, errNotLeader) {
		t.Fatalf("the replaced leader's raise: %v, want errNotLeader", err)
	}
	if now, v := read(); v != ver || now.Limit != 10 {
		t.Fatalf("the replaced leader's raise changed the sequence: limit %d, version %d -> %d", now.Limit, ver, v)
	}
	if p.Refused() != 1 || p.Raises() != 0 {
		t.Errorf("refused %d, raised %d", p.Refused(), p.Raises())
	}

	live := &term{p: p, node: liveNode}
	if err := live.raise(ctx, "fenced", DefaultRoot+"/fenced", st, ver, st.Next); err != nil {
		t.Fatal(err)
	}
	if now, _ := read(); now.Limit != 20 {
		t.Errorf("the leader's raise: limit %d, want 10 + 2 blocks of 5", now.Limit)
	}
	stored, _ := store.All(ctx)
	if stored["fenced"].Value != 20 {
		t.Errorf("stored %v", stored)
	}
}
