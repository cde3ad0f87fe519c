package barrier

import (
	"fmt"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/internal/testkit/sabotage"
)

// A seeded soak of three members under every kind of fault: every round
// together in and together out, nothing left behind.
func TestBarrierSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 61, Duration: 14 * time.Second, Speakers: 3,
		Servers: 1, Speaker: chaostest.Build(t, nil, "zkbarrier")}, func(rep chaos.Report) string {
		var lines, rounds int
		if _, err := fmt.Sscanf(rep.Summary, "lines of CMD %d, rounds %d", &lines, &rounds); err != nil || rounds < 2 {
			return fmt.Sprintf("want 2 rounds or more: %s", rep.Summary)
		}
		return ""
	})
}

// The barrier's checker catches a zkbarrier built broken: it opens the
// barrier one member short of the count.
func TestBarrierSoakCatchesARoundOpenedEarly(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 62, Duration: 10 * time.Second, Speakers: 3,
		Servers: 1, Kinds: []chaos.Kind{chaos.Term}, Speaker: chaostest.Build(t, sabotage.Barrier, "zkbarrier")}, NotTogetherIn, lock.Counted(NotTogetherIn))
}
