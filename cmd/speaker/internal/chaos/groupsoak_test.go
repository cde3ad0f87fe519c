package chaos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The group checker judges each member on its own, all through the soak:
// a member that does not join again after an operator deleted its znode
// (testdata/forgetfulmember, in zkgroup's place) is found missing while
// the faults still come, not only in the quiet after the last one.
func TestGroupSoakCatchesAMemberThatDoesNotJoinAgain(t *testing.T) {
	t.Parallel()
	cfg := Config{Recipe: RecipeGroup, Seed: 3, Duration: 10 * time.Second, Speakers: 3, Servers: 1,
		Kinds: []Kind{DeleteLeader, Reset}, Speaker: buildForgetfulGroup(t), Dir: filepath.Join(t.TempDir(), "soak")}
	rep, summary := runSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	last := lastFault(t, filepath.Join(cfg.Dir, "faults.log"))
	var early []Finding
	for _, f := range rep.Listing {
		if strings.Contains(f.Detail, " not listed") && f.Time.Before(last) {
			early = append(early, f)
		}
	}
	if rep.Pass() || len(early) == 0 {
		t.Fatalf("no member found missing before the last fault (%s), in %d listing findings: %v",
			clockOf(last), len(rep.Listing), rep.Listing)
	}
}

// buildForgetfulGroup puts the commands that buildSpeaker built in a
// folder of the test's own, with testdata/forgetfulmember as zkgroup and
// the real zkgroup beside it as zkgroup-real, and returns the speaker's
// path there.
func buildForgetfulGroup(t *testing.T) string {
	t.Helper()
	built := filepath.Dir(buildSpeaker(t, false))
	dir := t.TempDir()
	for from, to := range map[string]string{"speaker": "speaker", "zkgroup": "zkgroup-real", "forgetfulmember": "zkgroup"} {
		if err := os.Symlink(filepath.Join(built, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
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
