package group

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// A seeded soak of group membership: members joining, leaving, killed,
// frozen and cut off, and a watcher. Once things are quiet, ZooKeeper's
// listing and the watcher's last report are the live members; no member
// is listed, or reported joining, long after its process ended.
func TestGroupSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 8, Duration: 12 * time.Second, Speakers: 3, Servers: 1,
		Speaker: chaostest.Build(t, nil, "zkgroup")}, func(rep chaos.Report) string {
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
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 3, Duration: 10 * time.Second, Speakers: 3, Servers: 1, Kinds: []chaos.Kind{chaos.HoleLong},
		Speaker: chaostest.Build(t, sabotage.Group, "zkgroup")}, "wrong listings", func(rep chaos.Report) int { return len(rep.Found("wrong listings")) })
}

// The group checker judges each member on its own, all through the soak:
// a member that does not join again after an operator deleted its znode
// (testdata/forgetfulmember, in zkgroup's place) is found missing while
// the faults still come, not only in the quiet after the last one.
func TestGroupSoakCatchesAMemberThatDoesNotJoinAgain(t *testing.T) {
	t.Parallel()
	cfg := chaos.Config{Recipe: Name, Seed: 3, Duration: 10 * time.Second, Speakers: 3, Servers: 1,
		Kinds: []chaos.Kind{chaos.DeleteLeader, chaos.Reset}, Speaker: buildForgetfulGroup(t), Dir: filepath.Join(t.TempDir(), "soak")}
	rep, summary := chaostest.RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	last := lastFault(t, filepath.Join(cfg.Dir, "faults.log"))
	var early []chaos.Finding
	for _, f := range rep.Found("wrong listings") {
		if strings.Contains(f.Detail, " not listed") && f.Time.Before(last) {
			early = append(early, f)
		}
	}
	if rep.Pass() || len(early) == 0 {
		t.Fatalf("no member found missing before the last fault (%s), in %d listing findings: %v",
			chaos.Clock(last), len(rep.Found("wrong listings")), rep.Found("wrong listings"))
	}
}

// buildForgetfulGroup puts the commands that chaostest.Build built in a
// folder of the test's own, with testdata/forgetfulmember as zkgroup and
// the real zkgroup beside it as zkgroup-real, and returns the speaker's
// path there.
func buildForgetfulGroup(t *testing.T) string {
	t.Helper()
	built := filepath.Dir(chaostest.Build(t, nil, "zkgroup"))
	forgetful, err := sabotage.Built(nil, "zkspeaker/cmd/speaker/internal/chaos/group/testdata/forgetfulmember")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for from, to := range map[string]string{"speaker": "speaker", "zkgroup": "zkgroup-real"} {
		if err := os.Symlink(filepath.Join(built, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(forgetful, "forgetfulmember"), filepath.Join(dir, "zkgroup")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "speaker")
}

// lastFault reads when the soak's last fault began from its fault log.
func lastFault(t *testing.T, path string) time.Time {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	at, err := time.Parse(time.RFC3339Nano, strings.Fields(lines[len(lines)-1])[0])
	if err != nil {
		t.Fatalf("the fault log's last line: %v", err)
	}
	return at
}
