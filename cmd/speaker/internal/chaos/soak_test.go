package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/sabotage"
)

// buildSpeaker builds the commands into a folder of its own, as `make
// build` puts them into bin/, once per test binary and kind of build, and
// returns the speaker's path: the soak finds the others beside it. A
// broken build takes out the guards of sabotage.Guards, through an
// overlay of the sources: the shipped packages hold no switch for it.
func buildSpeaker(t *testing.T, broken bool) string {
	t.Helper()
	b, _ := builds.LoadOrStore(broken, &build{})
	bb := b.(*build)
	bb.once.Do(func() { bb.path, bb.err = buildCommands(broken) })
	if bb.err != nil {
		t.Fatal(bb.err)
	}
	return bb.path
}

// builds holds one build of each kind, for every test of the binary.
var builds sync.Map // broken -> *build

type build struct {
	once sync.Once
	path string
	err  error
}

func buildCommands(broken bool) (string, error) {
	dir, err := os.MkdirTemp("", "chaos-bin-")
	if err != nil {
		return "", err
	}
	var edits []sabotage.Edit
	if broken {
		edits = sabotage.Guards
	}
	// And the test program that stands in for zkgroup in one test: built
	// here, before any soak loads the machine.
	cmds := []string{"zkspeaker/cmd/speaker", "zkspeaker/cmd/zklock", "zkspeaker/cmd/seqid", "zkspeaker/cmd/zkgroup", "zkspeaker/cmd/zkconfig",
		"./testdata/forgetfulmember"}
	if err := sabotage.Build(dir, edits, cmds...); err != nil {
		return "", err
	}
	return filepath.Join(dir, "speaker"), nil
}

// runSoak runs cfg, in cfg.Dir or a folder of the test's own, and returns
// its report and summary; the ensemble needs ZooKeeper installed (make deps).
func runSoak(t *testing.T, cfg Config) (Report, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the soak runs real ZooKeeper servers and speakers")
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "soak")
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("the soak could not run (ZooKeeper missing? run make deps): %v", err)
	}
	var b strings.Builder
	rep.Write(&b)
	return rep, b.String()
}

// A seeded 15-second soak of every kind of fault, as `make chaos` runs
// one, and the exact check of what the speakers wrote: it must pass, with
// at least 8 faults injected (fewer fit when the machine is busy).
func TestSoak(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 15, Duration: 15 * time.Second, Speakers: 5, Election: "sequential", Policy: "at-most-one",
		Fence: true, Servers: 3, Speaker: buildSpeaker(t, false)}
	rep, summary := runSoak(t, cfg)
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
// (sabotage.Guards) keeps speaking while paused, as no policy allows, and its
// confirm says yes without asking. Long black holes on the leader must then
// show two speakers at once, and nothing explains it.
func TestSoakCatchesABrokenSpeaker(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 3, Duration: 15 * time.Second, Speakers: 3, Election: "sequential", Policy: "at-most-one",
		Fence: false, Servers: 1, Kinds: []Kind{HoleLong}, Speaker: buildSpeaker(t, true)}
	rep, summary := runSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if rep.Pass() || unexplained(rep) == 0 {
		t.Fatalf("the broken speaker passed the soak (%d unexplained overlaps): the checker cannot catch a double leader", unexplained(rep))
	}
}

// A seeded soak of zklock contenders under every kind of fault: no two
// critical sections at once, epochs that grow from holder to holder, the
// lock taken again within the bound after every fault, nothing left in
// ZooKeeper.
func TestLockSoak(t *testing.T) {
	t.Parallel()
	mustPass(t, Config{Recipe: RecipeLock, Seed: 21, Duration: 12 * time.Second, Speakers: 3, Policy: "at-most-one", Fence: true,
		Servers: 1, Speaker: buildSpeaker(t, false)}, func(rep Report) string {
		if rep.Terms < 2 {
			return fmt.Sprintf("%d holder in the soak, want at least 2: the lock never changed hands", rep.Terms)
		}
		return ""
	})
}

// mustPass runs the soak cfg, which must pass, and whose report enough
// must find rich enough ("" when it is).
func mustPass(t *testing.T, cfg Config, enough func(Report) string) {
	t.Helper()
	rep, summary := runSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if why := enough(rep); why != "" {
		t.Error(why)
	}
	if !rep.Pass() {
		t.Errorf("the soak failed: %v", rep.Failures())
	}
}

// The lock's checker catches a zklock built broken: its engine
// keeps the lock through a black hole, and its watchdog never stops CMD,
// so the next holder's critical section overlaps the old one's.
func TestLockSoakCatchesABrokenLock(t *testing.T) {
	t.Parallel()
	// Each CMD holds on past the soak's end: a holder cut off loses the
	// lock with its CMD at work, which must then overlap the next one's.
	mustFail(t, Config{Recipe: RecipeLock, Seed: 3, Duration: 12 * time.Second, Speakers: 3, Policy: "at-most-one",
		Servers: 1, Kinds: []Kind{HoleLong}, Hold: time.Minute, Speaker: buildSpeaker(t, true)}, "unexplained overlaps", unexplained)
}

// mustFail runs the soak cfg of a build broken on purpose: it must fail,
// with at least one finding that found counts.
func mustFail(t *testing.T, cfg Config, what string, found func(Report) int) {
	t.Helper()
	rep, summary := runSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if rep.Pass() || found(rep) == 0 {
		t.Fatalf("the broken %s build passed the soak (%d %s): its checker cannot catch what the build breaks", cfg.Recipe, found(rep), what)
	}
}

// unexplained counts the overlaps that no fault explains.
func unexplained(rep Report) int {
	n := 0
	for _, o := range rep.Overlaps {
		if !o.Explained() {
			n++
		}
	}
	return n
}

// A seeded soak of the sequence-ID service, with total losses of
// ZooKeeper's data and restores among the faults: no ID twice, every ID
// after a restore above every ID before, workers served again within the
// bound, nothing left in ZooKeeper.
func TestSeqidSoak(t *testing.T) {
	t.Parallel()
	cfg := Config{Recipe: RecipeSeqid, Seed: 3, Duration: 12 * time.Second, Speakers: 2, Servers: 1, Speaker: buildSpeaker(t, false)}
	mustPass(t, cfg, func(rep Report) string {
		switch {
		case rep.Kinds[DataLoss].N == 0:
			return fmt.Sprintf("seed %d drew no data loss in %v: the restore went untested", cfg.Seed, cfg.Duration)
		case rep.Lines < 100:
			return fmt.Sprintf("%d IDs handed out, want at least 100: the workers hardly worked", rep.Lines)
		}
		return ""
	})
}

// The sequence checker catches a seqid built broken, whose
// workers write without the compare-and-set: two workers that read the
// same next ID both take it.
func TestSeqidSoakCatchesABrokenSequence(t *testing.T) {
	t.Parallel()
	mustFail(t, Config{Recipe: RecipeSeqid, Seed: 3, Duration: 8 * time.Second, Speakers: 3, Servers: 1, Kinds: []Kind{Reset},
		Speaker: buildSpeaker(t, true)}, "duplicate IDs", func(rep Report) int { return len(rep.Duplicates) })
}

// A seeded soak of group membership: members joining, leaving, killed,
// frozen and cut off, and a watcher. Once things are quiet, ZooKeeper's
// listing and the watcher's last report are the live members; no member
// is listed, or reported joining, long after its process ended.
func TestGroupSoak(t *testing.T) {
	t.Parallel()
	mustPass(t, Config{Recipe: RecipeGroup, Seed: 8, Duration: 12 * time.Second, Speakers: 3, Servers: 1,
		Speaker: buildSpeaker(t, false)}, func(rep Report) string {
		if rep.Lines < 30 {
			return fmt.Sprintf("%d member lines read, want at least 30", rep.Lines)
		}
		return ""
	})
}

// The group checker catches a zkgroup built broken, whose
// members do not join again after their session expired: the listing
// misses a member whose process runs.
func TestGroupSoakCatchesABrokenGroup(t *testing.T) {
	t.Parallel()
	mustFail(t, Config{Recipe: RecipeGroup, Seed: 3, Duration: 10 * time.Second, Speakers: 3, Servers: 1, Kinds: []Kind{HoleLong},
		Speaker: buildSpeaker(t, true)}, "wrong listings", func(rep Report) int { return len(rep.Listing) })
}

// A seeded soak of the configuration service: updaters writing ever higher
// values, each key with a watcher. A watcher's values never go back, no
// acknowledged write is lost, and every watcher ends on its key's value.
func TestConfigSoak(t *testing.T) {
	t.Parallel()
	mustPass(t, Config{Recipe: RecipeConfig, Seed: 9, Duration: 12 * time.Second, Speakers: 2, Servers: 1,
		Speaker: buildSpeaker(t, false)}, func(rep Report) string {
		if rep.Lines < 10 {
			return fmt.Sprintf("%d values seen by the watchers, want at least 10", rep.Lines)
		}
		return ""
	})
}

// The config checker catches a zkconfig built broken, whose
// watcher does not read again after its session expired: its watch is
// gone, and it never hears of the later writes.
func TestConfigSoakCatchesABrokenWatcher(t *testing.T) {
	t.Parallel()
	mustFail(t, Config{Recipe: RecipeConfig, Seed: 3, Duration: 10 * time.Second, Speakers: 2, Servers: 1, Kinds: []Kind{HoleLong},
		Speaker: buildSpeaker(t, true)}, "stale watchers", func(rep Report) int { return len(rep.Stale) })
}
