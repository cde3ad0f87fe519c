package queue_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/queue"
)

// Inspect shows a queue as its handles leave it: the items in the order of
// takes, the priority first; an AtLeastOnce take's claim, held by the
// consumer's session; the handle that changed the items last, the
// producer after its puts and the consumer after its Ack; and a handle
// gone once it closes. Its watch fires at each change.
func TestInspectShowsItemsClaimsAndTheLastWriter(t *testing.T) {
	t.Parallel()
	servers := zktest.Shared(t).Servers()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*sessionTimeout)
	defer cancel()
	look := connect(t, servers)
	v, wake, err := queue.Inspect(ctx, look, path)
	if err != nil || v.Exists {
		t.Fatalf("before any handle: %+v, %v; want no queue", v, err)
	}
	pz, cz := connect(t, servers), connect(t, servers)
	who := func(sid int64) string {
		return map[int64]string{pz.SessionID(): "producer", cz.SessionID(): "consumer"}[sid]
	}
	// show is the view in one line: the items, each claim's holder, the
	// handles by their sessions, and the last writer.
	show := func(v queue.View) string {
		var out []string
		for _, it := range v.Items {
			out = append(out, fmt.Sprintf("%s@%d%s", it.Value, it.Priority, map[bool]string{true: "(claimed by " + who(it.ClaimedBy) + ")"}[it.Claimed]))
		}
		var hs []string
		for _, h := range v.Handles {
			for _, s := range h.Sessions {
				hs = append(hs, who(s))
				if h.Ledger == v.Last {
					out = append(out, "last="+who(s))
				}
			}
		}
		slices.Sort(hs)
		return strings.Join(append(out, "handles="+strings.Join(hs, ",")), " ")
	}
	seen := func(want string) {
		t.Helper()
		for show(v) != want {
			select {
			case <-wake:
			case <-time.After(10 * sessionTimeout):
				t.Fatalf("no notification; the view reads %q, want %q", show(v), want)
			}
			if v, wake, err = queue.Inspect(ctx, look, path); err != nil {
				t.Fatal(err)
			}
		}
	}

	p := open(t, pz, path)
	seen("handles=producer")
	c := open(t, cz, path, queue.WithDelivery(queue.AtLeastOnce))
	seen("handles=consumer,producer")
	put(t, p, "a", 0)
	put(t, p, "b", 5)
	seen("b@5 a@0 last=producer handles=consumer,producer")
	it := take(t, c, 10*sessionTimeout)
	seen("b@5(claimed by consumer) a@0 last=producer handles=consumer,producer")
	if err := it.Ack(ctx); err != nil {
		t.Fatal(err)
	}
	seen("a@0 last=consumer handles=consumer,producer")
	closeQueue(t, c)
	seen("a@0 handles=producer")
}

// closeQueue closes a handle before the test's end.
func closeQueue(t *testing.T, q *queue.Queue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*sessionTimeout)
	defer cancel()
	if err := q.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// Inspect's watch fires for a claim that ends with its consumer's session
// too: the item shows unclaimed again, back for the next take.
func TestInspectSeesAClaimEndWithItsSession(t *testing.T) {
	t.Parallel()
	servers := zktest.Shared(t).Servers()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*sessionTimeout)
	defer cancel()
	p := open(t, connect(t, servers), path)
	put(t, p, "x", 0)
	cz := connect(t, servers)
	take(t, open(t, cz, path, queue.WithDelivery(queue.AtLeastOnce)), 10*sessionTimeout)
	look := connect(t, servers)
	v, wake, err := queue.Inspect(ctx, look, path)
	if err != nil || len(v.Items) != 1 || v.Items[0].ClaimedBy != cz.SessionID() {
		t.Fatalf("after the take: %+v, %v; want x claimed by 0x%x", v, err, cz.SessionID())
	}
	cz.Close() // the consumer dies holding the claim
	for v.Items[0].Claimed {
		select {
		case <-wake:
		case <-time.After(10 * sessionTimeout):
			t.Fatalf("no notification; x still claimed by 0x%x", v.Items[0].ClaimedBy)
		}
		if v, wake, err = queue.Inspect(ctx, look, path); err != nil || len(v.Items) != 1 {
			t.Fatalf("%+v, %v; want x still in the queue", v, err)
		}
	}
}

// InspectFirst reads the first items only, in the order of takes, and
// names them all.
func TestInspectFirstReadsTheFirstItems(t *testing.T) {
	t.Parallel()
	servers := zktest.Shared(t).Servers()
	path := zktest.Path(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*sessionTimeout)
	defer cancel()
	rz := connect(t, servers)
	p := open(t, rz, path)
	for i, prio := range []int{0, 0, 7, 0} {
		put(t, p, fmt.Sprint("v", i), prio)
	}
	v, _, err := queue.InspectFirst(ctx, rz, path, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range v.Items {
		got = append(got, string(it.Value))
	}
	if !slices.Equal(got, []string{"v2", "v0"}) || len(v.Names) != 4 || v.Names[1] != v.Items[1].Name {
		t.Fatalf("read %q of %q; want v2 (priority 7) and v0 of 4, in the order of takes", got, v.Names)
	}
}
