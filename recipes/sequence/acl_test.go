package sequence_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// On a session made WithACL(DigestACL) (recoverable.Access), only clients of that identity take IDs or raise
// limits. A client without it can still read the sequences, but it cannot
// set a sequence's next ID back, which would have IDs handed out twice,
// nor take IDs, nor stand for the persistence election.
func TestACLKeepsStrayClientsOut(t *testing.T) {
	t.Parallel()
	const creds = "seq:secret"
	cluster := zktest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	connect := func(opts ...recoverable.Option) *recoverable.RecoverableZookeeper {
		return connectWith(ctx, t, cluster.Servers(), opts...)
	}
	store, err := sequence.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := []sequence.Option{sequence.WithBlock(10)}
	access, _ := recoverable.Access(creds)
	owner := connect(access...)
	if err := sequence.Create(ctx, owner, "orders", 1, opts...); err != nil {
		t.Fatal(err)
	}
	p, err := sequence.NewPersister(ctx, connect(access...), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	seq, err := sequence.Open(owner, "orders", opts...)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := seq.Next(ctx); err != nil || id != 1 {
		t.Fatalf("the identity's Next = %d, %v; want 1", id, err)
	}

	stray := connect()
	strayOpts := []sequence.Option{sequence.WithWait(time.Second)}
	if infos, err := sequence.List(ctx, stray, strayOpts...); err != nil || len(infos) != 1 || infos[0].Next != 2 {
		t.Errorf("a stray client's List = %+v, %v; want orders, next 2 (reading stays open)", infos, err)
	}
	straySeq, err := sequence.Open(stray, "orders", strayOpts...)
	if err != nil {
		t.Fatal(err)
	}
	if id, err := straySeq.Next(ctx); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("a stray client's Next = %d, %v; want NoAuth", id, err)
	}
	if st := straySeq.Stats(); st.Skipped != 0 {
		t.Errorf("a refused write skipped %d IDs: ZooKeeper answered, so nothing was written", st.Skipped)
	}
	if _, err := stray.Set(ctx, sequence.DefaultRoot+"/orders", []byte("next=1"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("a stray client set the sequence back: %v; want NoAuth", err)
	}
	if err := sequence.Create(ctx, stray, "other", 1, strayOpts...); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("a stray client created a sequence under the root: %v; want NoAuth", err)
	}
	// A stray persistence process starts, but its candidate's create is
	// refused: it never stands in the election, so it never raises.
	tried := stray.Traffic().Writes
	strayP, err := sequence.NewPersister(ctx, stray, store, strayOpts...)
	if err != nil {
		t.Fatal(err)
	}
	defer strayP.Close()
	for stray.Traffic().Writes == tried {
		if ctx.Err() != nil {
			t.Fatal("the stray persistence process never tried to join")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if candidates, err := owner.Children(ctx, sequence.DefaultElection); err != nil || len(candidates) != 1 {
		t.Errorf("election after a stray process tried to join: %v, %v; want the one candidate with the identity", candidates, err)
	}
	if id, err := seq.Next(ctx); err != nil || id != 2 {
		t.Errorf("after the stray client, the identity's Next = %d, %v; want 2", id, err)
	}
}

// A leader whose raise is refused because the sequence's ACL was changed
// under it says so (Failed), and keeps trying: once the ACL is put back,
// it raises the limit again, and workers get their IDs, in order.
func TestACLChangedUnderTheLeaderIsRetried(t *testing.T) {
	t.Parallel()
	const ann, bob = "ann:secret", "bob:secret"
	cluster := zktest.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	connect := func(creds string) *recoverable.RecoverableZookeeper { // what it makes is ann's
		return connectWith(ctx, t, cluster.Servers(), recoverable.WithDigestAuth(creds), recoverable.WithACL(recoverable.DigestACL(ann)))
	}
	store, err := sequence.OpenFileStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := []sequence.Option{sequence.WithBlock(10), sequence.WithWait(30 * time.Second)}
	owner := connect(ann)
	if err := sequence.Create(ctx, owner, "orders", 1, opts...); err != nil {
		t.Fatal(err)
	}
	p, err := sequence.NewPersister(ctx, connect(ann), store, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	bobZK := connect(bob)
	worker, err := sequence.Open(bobZK, "orders", opts...)
	if err != nil {
		t.Fatal(err)
	}

	// Only bob may write the sequence now; ann, the leader, may only read.
	seqPath := sequence.DefaultRoot + "/orders"
	bobOnly := append(recoverable.DigestACL(bob), zk.DigestACL(zk.PermRead, "ann", "secret")...)
	if _, err := owner.Conn().SetACL(seqPath, bobOnly, -1); err != nil {
		t.Fatal(err)
	}
	// Bob takes 40 IDs, four blocks: the leader must raise for them.
	ids, nextErr := make(chan int64, 40), make(chan error, 1)
	go func() {
		defer close(ids)
		for i := 0; i < 40; i++ {
			id, err := worker.Next(ctx)
			if err != nil {
				nextErr <- err
				return
			}
			ids <- id
		}
	}()
	defer func() {
		cancel()
		for range ids { //nolint:revive // waits for bob's goroutine
		}
	}()
	select {
	case <-p.Failed():
		if !errors.Is(p.Err(), zk.ErrNoAuth) {
			t.Fatalf("Failed, with %v; want NoAuth", p.Err())
		}
	case <-ctx.Done():
		t.Fatal("the leader never said that its raise was refused")
	}
	both := append(recoverable.DigestACL(bob), zk.DigestACL(zk.PermAll, "ann", "secret")...)
	if _, err := bobZK.Conn().SetACL(seqPath, both, -1); err != nil {
		t.Fatal(err)
	}
	want := int64(1)
	for id := range ids {
		if id != want {
			t.Fatalf("bob got ID %d, want %d", id, want)
		}
		want++
	}
	if want != 41 {
		t.Fatalf("bob got %d IDs, then %v; want 40: the leader did not raise again once the ACL was put back", want-1, <-nextErr)
	}
}

// connectWith opens a session with opts, closed when the test ends.
func connectWith(ctx context.Context, t *testing.T, servers []string, opts ...recoverable.Option) *recoverable.RecoverableZookeeper {
	t.Helper()
	rz, err := recoverable.Connect(servers, 4*time.Second, append(opts, recoverable.WithLogger(zktest.Logger(t)))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rz.Close)
	if err := rz.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	return rz
}
