package barrier_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// Nobody enters before the count is in, and then all do. Each waiter
// watches the ready znode alone: the one that makes the count wakes them
// by creating it, and no arrival wakes anyone else.
func TestEnterWaitsForTheCount(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	a, az := member(t, path, 3)
	b, bz := member(t, path, 3)
	c, _ := member(t, path, 3)
	ae, be := async(ctx, a.Enter), async(ctx, b.Enter)
	awaitWatch(t, az, path+"/ready")
	awaitWatch(t, bz, path+"/ready")
	waiting(t, ae, "ann's Enter with 2 of 3 in")
	waiting(t, be, "bob's Enter with 2 of 3 in")
	if err := c.Enter(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan error{ae, be} {
		if err := returned(t, ch, 5*session, "Enter after the third came"); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []*barrier.DoubleBarrier{a, b, c} {
		if m.State() != barrier.StateInside {
			t.Errorf("%s: %v, want inside", m.Member(), m.State())
		}
	}
}

// A member that dies before the count is in no longer counts: with 3 to
// wait for, two in and one of them gone, a third arrival still waits; a
// fourth makes three alive at once.
func TestAMemberThatDiesBeforeEntryNoLongerCounts(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	a, az := member(t, path, 3)
	b, bz := member(t, path, 3)
	c, cz := member(t, path, 3)
	d, _ := member(t, path, 3)
	ae, be := async(ctx, a.Enter), async(ctx, b.Enter)
	awaitWatch(t, az, path+"/ready")
	awaitWatch(t, bz, path+"/ready")
	bz.Close() // bob dies: his session ends, and his znode with it
	if err := returned(t, be, 5*session, "the dead member's Enter"); err == nil {
		t.Fatal("bob's Enter returned nil after his session closed")
	}
	ce := async(ctx, c.Enter)
	awaitWatch(t, cz, path+"/ready")
	waiting(t, ae, "ann's Enter with 2 alive of 3")
	waiting(t, ce, "cid's Enter with 2 alive of 3")
	if err := d.Enter(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan error{ae, ce} {
		if err := returned(t, ch, 5*session, "Enter after the fourth came"); err != nil {
			t.Fatal(err)
		}
	}
}

// Nobody's Leave returns before every member still alive has left; a
// member that dies inside is not waited for.
func TestLeaveWaitsForEveryLiveMemberButNotTheDead(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	ms := enterAll(ctx, t, path, 4)
	al, bl := async(ctx, ms[0].b.Leave), async(ctx, ms[1].b.Leave)
	// Both have decided to wait: ann (the lowest) on the highest, bob on
	// ann. Their guards still watch their own znodes.
	time.Sleep(300 * time.Millisecond)
	waiting(t, al, "ann's Leave while cid and dan are inside")
	waiting(t, bl, "bob's Leave while cid and dan are inside")
	ms[2].rz.Close() // cid dies inside
	waiting(t, al, "ann's Leave while dan is inside")
	if err := ms[3].b.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []<-chan error{al, bl} {
		if err := returned(t, ch, 5*session, "Leave after the last live member left"); err != nil {
			t.Fatal(err)
		}
	}
	if left := children(t, ms[0].rz, path); len(left) != 0 {
		t.Errorf("left behind under the barrier: %q, want nothing (the last out removes ready)", left)
	}
}

// The barrier serves round after round: once a round has left, a new
// member waits for the count again, and a member that comes while a round
// is inside waits for the next one rather than walking in.
func TestALateMemberWaitsForTheNextRound(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	first := enterAll(ctx, t, path, 2)
	late, lz := member(t, path, 2)
	le := async(ctx, late.Enter)
	lowest := first[0].b.Member()
	if seq := first[1].b.Member(); seq[len(seq)-10:] < lowest[len(lowest)-10:] {
		lowest = seq
	}
	awaitWatch(t, lz, lowest) // the lowest member of the round inside
	waiting(t, le, "a late member's Enter while a round is inside")
	for _, ch := range []<-chan error{async(ctx, first[0].b.Leave), async(ctx, first[1].b.Leave)} {
		if err := returned(t, ch, 5*session, "the first round's Leave"); err != nil {
			t.Fatal(err)
		}
	}
	awaitWatch(t, lz, path+"/ready")
	waiting(t, le, "the late member's Enter, alone in the next round")
	next, _ := member(t, path, 2)
	if err := next.Enter(ctx); err != nil {
		t.Fatal(err)
	}
	if err := returned(t, le, 5*session, "the late member's Enter once two are in"); err != nil {
		t.Fatal(err)
	}
	r1, r2 := first[0].b.Round(), next.Round()
	if r1 == 0 || first[1].b.Round() != r1 || late.Round() != r2 || r2 <= r1 {
		t.Errorf("rounds: first %d and %d, next %d and %d; want one number a round, higher for the next", r1, first[1].b.Round(), late.Round(), r2)
	}
}

// Every member must wait for the same count: the barrier's znode records
// the first, and another is refused before anything is made.
func TestACountThatDisagreesIsRefused(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*session)
	defer cancel()
	a, az := member(t, path, 2)
	ae := async(ctx, a.Enter)
	awaitWatch(t, az, path+"/ready")
	b, _ := member(t, path, 3)
	err := b.Enter(ctx)
	var ce *barrier.CountError
	if !errors.As(err, &ce) || !errors.Is(err, barrier.ErrCount) || ce.Field != "count" || ce.Recorded != "2" {
		t.Fatalf("Enter with 3 where 2 is recorded: %v, want a CountError recording 2", err)
	}
	if got := children(t, az, path); len(got) != 1 {
		t.Errorf("children %q, want ann's alone", got)
	}
	waiting(t, ae, "ann's Enter")
	if _, err := barrier.NewDouble(az, path, 0); !errors.As(err, &ce) {
		t.Errorf("NewDouble with 0: %v, want a CountError", err)
	}
}

// entered is a member inside, with its session.
type entered struct {
	b  *barrier.DoubleBarrier
	rz *recoverable.RecoverableZookeeper
}

// enterAll enters n members, each on its own session, into the double
// barrier at path that waits for n.
func enterAll(ctx context.Context, t *testing.T, path string, n int) []entered {
	t.Helper()
	out := make([]entered, n)
	chs := make([]<-chan error, n)
	for i := range out {
		b, rz := member(t, path, n)
		out[i] = entered{b, rz}
		chs[i] = async(ctx, b.Enter)
	}
	for _, ch := range chs {
		if err := returned(t, ch, 10*session, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
