package program

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/speaker"
)

// The peers of docs/peers keep working under --cmd, as `make peers` runs
// them: each stands, writes its lines, and the report names it. Whether
// it passes is what `make peers` measures, not what this test asks: a
// short soak may deal it no fault that it gets wrong.
func TestPeersRunUnderTheSoak(t *testing.T) {
	t.Parallel()
	speaker := chaostest.Build(t, nil)
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(Python, "-c", "import kazoo").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import kazoo (make test-tools installs python3-kazoo): %v\n%s", Python, err, out)
	}
	dir, err := sabotage.Built(nil, "zkspeaker/docs/peers/zklock")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Peers(speaker, filepath.Join(dir, "zklock"), root)[1:] {
		t.Run(p.Short, func(t *testing.T) {
			t.Parallel()
			cfg := chaos.Config{Recipe: Name, Cmd: p.Cmd, Seed: 5, Duration: 6 * time.Second, Speakers: 3, Policy: "at-most-one",
				Servers: 1, Speaker: speaker}
			rep, summary := chaostest.RunSoak(t, cfg)
			t.Logf("summary:\n%s", summary)
			if rep.Lines == 0 || len(rep.Writers) == 0 {
				t.Errorf("%s wrote no line: it did not stand, or broke the contract", p.Name)
			}
			if rep.Cmd != p.Cmd || !strings.Contains(summary, "program under test: "+p.Cmd) {
				t.Errorf("the report names %q, want %q", rep.Cmd, p.Cmd)
			}
		})
	}
}

// The course's skeleton (docs/exercise/speaker) keeps the contract's
// plumbing and holds no election: every process writes, and the soak
// finds nothing wrong but overlaps (no torn line, counter jump, stall,
// leak or bad exit), as the course's last chapter says a student's first
// run shows.
func TestTheExerciseSkeletonKeepsTheContract(t *testing.T) {
	t.Parallel()
	speaker := chaostest.Build(t, nil)
	dir, err := sabotage.Built(nil, "zkspeaker/docs/exercise/speaker")
	if err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("'%s' --zk {servers} --name {name} --out {out} --path {path} --session {session}", filepath.Join(dir, "speaker"))
	cfg := chaos.Config{Recipe: Name, Cmd: cmd, Seed: 1, Duration: 6 * time.Second, Speakers: 3, Policy: "at-most-one",
		Servers: 1, Speaker: speaker}
	rep, summary := chaostest.RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if f := rep.Failures(); len(f) > 1 || len(f) == 1 && f[0] != "unexplained overlaps" || len(rep.Writers) != 3 {
		t.Errorf("the skeleton failed on %v with writers %v; want overlaps at most, and all three writing", f, rep.Writers)
	}
}

// The table has a row per soak, with its counts and verdict.
func TestTableSaysEachSoaksCountsAndVerdict(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 20, 0, 0, 0, time.UTC)
	good := chaos.Report{Lines: 40, Kinds: []chaos.KindStats{{Kind: chaos.Kill, N: 3}, {Kind: chaos.Reset, N: 2}}}
	bad := chaos.Report{Lines: 50, Kinds: []chaos.KindStats{{Kind: chaos.Kill, N: 4}},
		Overlaps: []chaos.Overlap{{Overlap: speaker.Overlap{A: "s1", B: "s2", From: at, To: at}}}}
	var b bytes.Buffer
	WriteTable(&b, []Row{{"ours", good}, {"theirs", bad}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := [][]string{
		{"program", "faults", "overlaps", "explained", "unexplained", "stalls", "torn", "lines", "lines", "result"},
		{"ours", "5", "0", "0", "0", "0", "40", "PASS"},
		{"theirs", "4", "0", "1", "0", "0", "50", "FAIL", "(unexplained", "overlaps)"},
	}
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s\nwant %d lines", b.String(), len(want))
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d: %q, want %q", i, got, w)
		}
	}
}
