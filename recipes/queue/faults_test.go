package queue_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
)

// loseNextMulti arms proxy so that the server's answer to the next multi
// is held: the caller resets the connection once applied is closed, and
// the answer never reaches the client. restore lets the client back in.
func loseNextMulti(proxy *zktest.Proxy) (applied <-chan struct{}, restore func()) {
	ch, release := proxy.HoldReply(zktest.OpMulti)
	return ch, func() {
		release()
		proxy.Restore()
	}
}

// A take's delete is applied and its reply lost. The taker must not take
// "item gone" for another taker's win (the item would be lost, taken by
// nobody), nor may another taker get it: the ledger settles that the take
// was ours, and the item is delivered exactly once.
func TestATakesLostReplyIsSettledByTheLedger(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	server := zktest.Shared(t).Servers()
	proxy := zktest.NewProxy(t, server[0])
	taker := open(t, connect(t, []string{proxy.Addr()}), path)
	other := open(t, connect(t, server), path)
	put(t, open(t, connect(t, server), path), "only", 0)

	applied, restore := loseNextMulti(proxy)
	got := make(chan *queue.Item, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		it, err := taker.Take(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- it
	}()
	<-applied
	proxy.Reset()
	empty(t, other, electiontest.Slack) // the other taker finds nothing while we are cut off
	restore()
	it := <-got
	if it == nil || string(it.Value) != "only" {
		t.Fatalf("the taker whose reply was lost got %v, want the item", it)
	}
	if left := list(t, connect(t, server), path); len(left) != 0 {
		t.Fatalf("%d items left", len(left))
	}
}

// A put's create is applied, its reply lost, and a consumer takes the item
// before the producer is back. Looking for the item (a protected name)
// would find nothing and create it again; the ledger says it went in, and
// the put succeeds without a second item.
func TestAPutsLostReplyIsNotPutAgainWhenTakenMeanwhile(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	server := zktest.Shared(t).Servers()
	proxy := zktest.NewProxy(t, server[0])
	producer := open(t, connect(t, []string{proxy.Addr()}), path)
	consumer := open(t, connect(t, server), path)

	applied, restore := loseNextMulti(proxy)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := producer.Put(ctx, []byte("once"))
		done <- err
	}()
	<-applied
	proxy.Reset()
	if it := take(t, consumer, 10*time.Second); string(it.Value) != "once" {
		t.Fatalf("took %q", it.Value)
	}
	restore()
	if err := <-done; err != nil {
		t.Fatalf("put: %v", err)
	}
	empty(t, consumer, electiontest.Slack) // no second copy
}

// An AtLeastOnce consumer claims an item and is cut off until its session
// expires. Its claim ends, another consumer claims the item; the first
// comes back on a new session and acknowledges: it must get ErrClaimLost
// and delete nothing, and the second's Ack must succeed.
func TestAnAckAfterTheSessionEndedDeletesNothing(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	server := zktest.Shared(t).Servers()
	proxy := zktest.NewProxy(t, server[0])
	first := open(t, connect(t, []string{proxy.Addr()}), path, queue.WithDelivery(queue.AtLeastOnce))
	second := open(t, connect(t, server), path, queue.WithDelivery(queue.AtLeastOnce))
	put(t, open(t, connect(t, server), path), "job", 0)

	mine := take(t, first, 10*time.Second)
	proxy.Reset() // cut off until its session expires
	theirs := take(t, second, 3*sessionTimeout+electiontest.Slack)
	proxy.Restore()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mine.Ack(ctx); !errors.Is(err, queue.ErrClaimLost) {
		t.Fatalf("the expired consumer's Ack: %v, want ErrClaimLost", err)
	}
	if err := theirs.Ack(ctx); err != nil {
		t.Fatalf("the second consumer's Ack: %v", err)
	}
	if left := list(t, connect(t, server), path); len(left) != 0 {
		t.Fatalf("%d items left", len(left))
	}
}

// The multi that marks a new handle's ledger for its session is applied,
// its reply lost, and the handle cut off until that session expires: the
// marker went with the session. An expiry is an ordinary fault, and a
// `zkqueue take` must not fail on one: New marks the ledger for the new
// session and opens, and the handle works.
func TestAnOpenAcrossASessionExpiryOpens(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	server := zktest.Shared(t).Servers()
	proxy := zktest.NewProxy(t, server[0])
	rz := zktest.Connect(t, []string{proxy.Addr()}, sessionTimeout, patient())
	sid := rz.SessionID()
	applied, restore := loseNextMulti(proxy)
	opened := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		q, err := queue.New(ctx, rz, path)
		if err == nil {
			err = q.Close(ctx)
		}
		opened <- err
	}()
	<-applied
	proxy.Reset()
	time.Sleep(rz.SessionTimeout() + zktest.TickTime + electiontest.Slack)
	restore()
	if err := <-opened; err != nil {
		t.Fatalf("open across an expiry: %v", err)
	}
	if rz.SessionID() == sid {
		t.Fatalf("session %#x did not expire", sid)
	}
	q := open(t, rz, path)
	put(t, q, "after", 0)
	if it := take(t, q, 10*time.Second); string(it.Value) != "after" {
		t.Fatalf("took %q", it.Value)
	}
}

// As above, but the first consumer stays cut off until another handle has
// reaped its ledger, and sends its Ack before it is back: its client still
// holds the old session, so the Ack goes out on the session that made the
// claim, and is answered on a new one, where neither the ledger nor its
// marker is left. The ledger cannot say whether the Ack went in; the item
// can: it is still in the queue, claimed by the second consumer, and the
// Ack would have deleted it. So the Ack is ErrClaimLost, not ErrUnsettled.
func TestAnAckAfterItsLedgerWasReapedIsClaimLost(t *testing.T) {
	t.Parallel()
	path := zktest.Path(t)
	server := zktest.Shared(t).Servers()
	proxy := zktest.NewProxy(t, server[0])
	rz := connect(t, server)
	first := open(t, zktest.Connect(t, []string{proxy.Addr()}, sessionTimeout, patient()), path, queue.WithDelivery(queue.AtLeastOnce))
	mine := ledgers(t, rz, path)
	second := open(t, rz, path, queue.WithDelivery(queue.AtLeastOnce)) // it reaps
	put(t, second, "job", 0)

	it := take(t, first, 10*time.Second)
	proxy.Reset() // cut off until its session expires, and past its grace
	theirs := take(t, second, 3*sessionTimeout+electiontest.Slack)
	gone(t, rz, path, mine[0], 4*sessionTimeout+zktest.TickTime+2*electiontest.Slack)
	acked := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		acked <- it.Ack(ctx)
	}()
	time.Sleep(sessionTimeout / 4) // the Ack goes out while cut off
	proxy.Restore()
	if err := <-acked; !errors.Is(err, queue.ErrClaimLost) {
		t.Fatalf("the Ack sent while its ledger was gone: %v, want ErrClaimLost", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := theirs.Ack(ctx); err != nil {
		t.Fatalf("the second consumer's Ack: %v", err)
	}
	if left := list(t, rz, path); len(left) != 0 {
		t.Fatalf("%d items left", len(left))
	}
}
