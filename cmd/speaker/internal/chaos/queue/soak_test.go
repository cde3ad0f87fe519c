package queue

import (
	"fmt"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/internal/testkit/sabotage"
)

// A seeded soak of two producers and two consumers under every kind of
// fault: every acknowledged put taken for good once or left in the queue,
// nothing taken while held, the items taken in the queue's order, and no
// ledger left.
func TestQueueSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 71, Duration: 14 * time.Second, Speakers: 2,
		Servers: 1, Speaker: chaostest.Build(t, nil, "zkqueue")}, func(rep chaos.Report) string {
		var puts, takes, acks, lost, left int
		_, err := fmt.Sscanf(rep.Summary, "puts acknowledged %d, takes %d, items acknowledged %d, claims lost %d, left in the queue %d", &puts, &takes, &acks, &lost, &left)
		if err != nil || puts == 0 || acks == 0 {
			// One put acknowledged and one item acknowledged, or no
			// check had anything to judge; how many more fit in 14 s is
			// the machine's load, which is not this test's point.
			return fmt.Sprintf("want a put and an item acknowledged: %s", rep.Summary)
		}
		return ""
	})
}

// The checker catches a zkqueue built broken: a consumer whose claim
// meets another's takes the item anyway.
func TestQueueSoakCatchesATakeWhileHeld(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 72, Duration: 10 * time.Second, Speakers: 2,
		Servers: 1, Kinds: []chaos.Kind{chaos.Reset}, Speaker: chaostest.Build(t, sabotage.Queue, "zkqueue")}, TakenWhileHeld, lock.Counted(TakenWhileHeld))
}

// The checker catches a zkqueue built broken: a consumer that tries the
// items from the last takes the newest, passing over older ones.
func TestQueueSoakCatchesATakeOutOfOrder(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 73, Duration: 8 * time.Second, Speakers: 2,
		Servers: 1, Kinds: []chaos.Kind{chaos.Reset}, Speaker: chaostest.Build(t, sabotage.QueueOrder, "zkqueue")}, OutOfOrder, lock.Counted(OutOfOrder))
}
