package speaker

import (
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// A seeded 15-second soak of every kind of fault, as `make chaos` runs
// one, and the exact check of what the speakers wrote: it must pass, with
// at least 8 faults injected (fewer fit when the machine is busy).
func TestSoak(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Seed: 15, Duration: 15 * time.Second, Speakers: 5, Election: "sequential", Policy: "at-most-one",
		Fence: true, Servers: 3, Speaker: chaostest.Build(t, nil)}
	rep, summary := chaostest.RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	faults := 0
	for _, k := range rep.Kinds {
		faults += k.N
	}
	if faults < 8 {
		t.Errorf("%d faults in %v, want at least 8", faults, cfg.Duration)
	}
	if !rep.Pass() {
		t.Errorf("the soak failed: %v", rep.Failures())
	}
}

// A checker that cannot fail proves nothing. A speaker built broken
// (sabotage.Election) keeps speaking while paused, as no policy allows, and its
// confirm says yes without asking. Long black holes on the leader must then
// show two speakers at once, and nothing explains it.
func TestSoakCatchesABrokenSpeaker(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Seed: 3, Duration: 15 * time.Second, Speakers: 3, Election: "sequential", Policy: "at-most-one",
		Fence: false, Servers: 1, Kinds: []chaos.Kind{chaos.HoleLong}, Speaker: chaostest.Build(t, sabotage.Election)}
	rep, summary := chaostest.RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if rep.Pass() || chaostest.Unexplained(rep) == 0 {
		t.Fatalf("the broken speaker passed the soak (%d unexplained overlaps): the checker cannot catch a double leader", chaostest.Unexplained(rep))
	}
}
