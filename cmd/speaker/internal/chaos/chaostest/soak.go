package chaostest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/internal/testkit/leakcheck"
	"zkspeaker/internal/testkit/sabotage"
	"zkspeaker/internal/testkit/zktest"
)

// Build builds the speaker, and the commands cmds ("zklock") beside it,
// as `make build` puts them into bin/, once per test binary and kind of
// build, and returns the speaker's path: a recipe's soak finds its command
// beside it. The guards of edits are taken out (none: a plain build),
// through an overlay of the sources: the shipped packages hold no switch
// for it. Under -short it skips the test, a soak's.
func Build(t *testing.T, edits []sabotage.Edit, cmds ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the soak runs real ZooKeeper servers and speakers")
	}
	pkgs := []string{"zkspeaker/cmd/speaker"}
	for _, c := range cmds {
		pkgs = append(pkgs, "zkspeaker/cmd/"+c)
	}
	if len(edits) > 0 && len(cmds) > 0 {
		// A recipe's edits break its own commands: only they are built
		// broken (each link costs seconds of CPU), beside the plain
		// speaker, which the soak only uses to find them.
		return brokenBeside(t, Build(t, nil, cmds...), edits, pkgs[1:])
	}
	dir, err := sabotage.Built(edits, pkgs...)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "speaker")
}

// besideMu orders the links brokenBeside makes in the shared folders.
var besideMu sync.Mutex

// brokenBeside builds pkgs with the guards of edits taken out, links the
// plain speaker beside them, and returns that link's path.
func brokenBeside(t *testing.T, speaker string, edits []sabotage.Edit, pkgs []string) string {
	t.Helper()
	dir, err := sabotage.Built(edits, pkgs...)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "speaker")
	besideMu.Lock()
	defer besideMu.Unlock()
	if _, err := os.Lstat(link); err != nil {
		// make test's prebuilt folders are shared by the test binaries:
		// another may have made the same link first.
		if err := os.Symlink(speaker, link); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Fatal(err)
		}
	}
	return link
}

// Main is a chaos package's TestMain: it registers the recipes its tests
// run, fails the package when its tests leave a goroutine running, and
// removes the commands its soaks built. The soaks' servers run on the test
// servers' light JVM options: several soaks start theirs at once.
func Main(m *testing.M, recipes ...chaos.Recipe) {
	chaos.Register(recipes...)
	os.Setenv("ZK_JAVA_OPTS", zktest.LightJVM) //nolint:errcheck // cannot fail for a valid name
	code := leakcheck.Main(m)
	sabotage.RemoveBuilt()
	os.Exit(code)
}

// RunSoak runs cfg, in cfg.Dir or a folder of the test's own, and returns
// its report and summary; the ensemble needs ZooKeeper installed (make deps).
func RunSoak(t *testing.T, cfg chaos.Config) (chaos.Report, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the soak runs real ZooKeeper servers and speakers")
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "soak")
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+3*time.Minute)
	defer cancel()
	rep, err := chaos.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("the soak could not run (ZooKeeper missing? run make deps): %v", err)
	}
	var b strings.Builder
	rep.Write(&b)
	return rep, b.String()
}

// MustPass runs the soak cfg, which must pass, and whose report enough
// must find rich enough ("" when it is).
func MustPass(t *testing.T, cfg chaos.Config, enough func(chaos.Report) string) {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "soak")
	}
	rep, summary := RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if why := enough(rep); why != "" {
		t.Error(why)
	}
	if !rep.Pass() {
		// The record goes with the test's folder: the faults say what
		// to look for in the next run.
		faults, _ := os.ReadFile(filepath.Join(cfg.Dir, "faults.log"))
		t.Errorf("the soak failed: %v; its faults.log:\n%s", rep.Failures(), faults)
	}
}

// MustFail runs the soak cfg of a build broken on purpose: it must fail,
// with at least one finding that found counts.
func MustFail(t *testing.T, cfg chaos.Config, what string, found func(chaos.Report) int) {
	t.Helper()
	rep, summary := RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if rep.Pass() || found(rep) == 0 {
		t.Fatalf("the broken %s build passed the soak (%d %s): its checker cannot catch what the build breaks", cfg.Recipe, found(rep), what)
	}
}

// Unexplained counts the overlaps that no fault explains.
func Unexplained(rep chaos.Report) int {
	n := 0
	for _, o := range rep.Overlaps {
		if !o.Explained() {
			n++
		}
	}
	return n
}
