package barrier_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/barrier"
)

// A member whose create reply is lost finds its znode by its protected
// name: one member znode, not two, and the count of one is reached.
func TestALostCreateReplyMakesOneMember(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	admin := connect(t)
	proxy := zktest.NewProxy(t, zktest.Shared(t).Server(0))
	rz := zktest.Connect(t, []string{proxy.Addr()}, session)
	b, err := barrier.NewDouble(rz, path, 2)
	if err != nil {
		t.Fatal(err)
	}
	proxy.ResetAfterCreate(path + "/_c_")
	be := async(ctx, b.Enter)
	select {
	case <-proxy.Fired():
	case <-time.After(10 * session):
		t.Fatal("the trap on the member's create never sprang")
	}
	awaitWatch(t, rz, path+"/ready")
	if got := children(t, admin, path); len(got) != 1 {
		t.Fatalf("after a lost create reply: %q, want one member znode", got)
	}
	other, _ := member(t, path, 2)
	if err := other.Enter(ctx); err != nil {
		t.Fatal(err)
	}
	if err := returned(t, be, 5*session, "Enter after a lost reply"); err != nil {
		t.Fatal(err)
	}
}

// A member whose znode goes while it is inside (an operator deletes it;
// an expiry does the same) is told at once: StateLost, and Leave and Err
// say ErrLost. The others do not wait for it.
func TestAMemberWhoseZnodeGoesInsideIsToldItIsLost(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	ms := enterAll(ctx, t, path, 2)
	lost := ms[0].b
	states := lost.Observe(ctx)
	if err := ms[1].rz.Delete(ctx, lost.Member(), -1); err != nil {
		t.Fatal(err)
	}
	for s := range states {
		if s == barrier.StateLost {
			break
		}
	}
	if err := ms[1].b.Leave(ctx); err != nil {
		t.Fatalf("the other's Leave: %v", err)
	}
	if err := lost.Leave(ctx); !errors.Is(err, barrier.ErrLost) {
		t.Fatalf("Leave of the lost member: %v, want ErrLost", err)
	}
	<-lost.Done()
	if !errors.Is(lost.Err(), barrier.ErrLost) {
		t.Fatalf("Err: %v, want ErrLost", lost.Err())
	}
}

// A member cut off inside for longer than its session: its znode goes
// with the session, the other leaves without it, and once the cut heals
// the member learns it was not waited for (ErrLost).
func TestAMemberCutOffInsideLearnsItWasLost(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	admin := connect(t)
	proxy := zktest.NewProxy(t, zktest.Shared(t).Server(0))
	cut, err := barrier.NewDouble(zktest.Connect(t, []string{proxy.Addr()}, session), path, 2)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := member(t, path, 2)
	ce, oe := async(ctx, cut.Enter), async(ctx, other.Enter)
	for _, ch := range []<-chan error{ce, oe} {
		if err := returned(t, ch, 10*session, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
	proxy.Cut()
	deadline := time.Now().Add(5 * session)
	for ok := true; ok; {
		var err error
		if ok, _, err = admin.Exists(ctx, cut.Member()); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cut member's znode still there %v after the cut", 5*session)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := other.Leave(ctx); err != nil {
		t.Fatalf("the other's Leave, with the cut member's session over: %v", err)
	}
	proxy.Heal()
	if err := cut.Leave(ctx); !errors.Is(err, barrier.ErrLost) {
		t.Fatalf("the cut member's Leave: %v, want ErrLost", err)
	}
}
