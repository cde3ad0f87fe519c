package scripttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// cleanDemo runs ensemble-scripts/clean-demo.sh on out and returns what it
// said and its exit status. The tmux session it may stop is one that does
// not exist: a developer's own make demo-tmux is left alone.
func cleanDemo(t *testing.T, out string) (string, int) {
	t.Helper()
	cmd := scriptCmd(t, []string{"DEMO_OUT=" + out, "ENSEMBLE_DIR=" + filepath.Join(out, "ensemble"),
		"TMUX_SESSION=zkspeaker-test-clean-demo-" + strconv.Itoa(os.Getpid())}, "clean-demo.sh")
	said, _ := cmd.CombinedOutput()
	return string(said), cmd.ProcessState.ExitCode()
}

// startLogged starts name with args, its stderr in log, and stops it with
// SIGKILL when the test ends if it still runs.
func startLogged(t *testing.T, log, name string, args ...string) *exec.Cmd {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stderr = f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// checkEmptiedKeepingGitkeep fails t unless out is still there, holding
// only .gitkeep: the repository tracks out/.gitkeep, so deleting it shows up
// in git status, and the chapters' `2> out/duck.log` needs out/ to exist.
func checkEmptiedKeepingGitkeep(t *testing.T, out, said string) {
	t.Helper()
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatalf("clean-demo deleted %s itself; a later `2> out/x.log` fails (%v):\n%s", out, err, said)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".gitkeep" {
		t.Errorf("after clean-demo %s holds %q, want only .gitkeep:\n%s", out, names, said)
	}
}

// make clean-demo is the clean start of each section of the course. While a
// speaker still writes in out/ it changes nothing and names the speaker (a
// reader such as tail -F is no obstacle); once the speaker is stopped, it
// stops the ensemble's servers and empties out/, the ensemble with it, but
// keeps out/ and the tracked out/.gitkeep.
func TestCleanDemoStopsAndWipesOnlyWhenNothingWrites(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	killLeftovers(t, out)
	e := &ensembleScript{t: t, dir: filepath.Join(out, "ensemble"), base: freeBase(t)}
	zktest.RequireZooKeeper(t)
	t.Cleanup(func() { _, _ = e.run("clean") })
	e.must("start", "1")
	if err := os.WriteFile(filepath.Join(out, ".gitkeep"), nil, 0o644); err != nil { // as in a clone
		t.Fatal(err)
	}
	outFile := filepath.Join(out, "out.txt")
	speaker := startLogged(t, filepath.Join(out, "s1.log"), zktest.BuildSpeaker(t), "--servers", fmt.Sprintf("127.0.0.1:%d", e.base),
		"--name", "s1", "--interval", "200ms", "--out", outFile)
	tail := startLogged(t, filepath.Join(t.TempDir(), "tail.log"), "tail", "-F", outFile) // as in a terminal of its own
	waitLines(t, outFile, 1, time.Now().Add(30*time.Second))

	said, status := cleanDemo(t, out)
	if status != 1 || !strings.Contains(said, strconv.Itoa(speaker.Process.Pid)+" ") {
		t.Errorf("clean-demo with s1 writing: status %d, want 1, naming s1's pid %d:\n%s", status, speaker.Process.Pid, said)
	}
	if strings.Contains(said, strconv.Itoa(tail.Process.Pid)+" ") {
		t.Errorf("clean-demo named tail -F, a reader, among the writers:\n%s", said)
	}
	if _, err := os.Stat(outFile); err != nil {
		t.Errorf("clean-demo refused, yet out.txt is gone: %v", err)
	}
	if pids := e.must("pids"); strings.TrimSpace(pids) == "" {
		t.Errorf("clean-demo refused, yet it stopped the ensemble")
	}

	_ = speaker.Process.Signal(syscall.SIGTERM)
	_ = speaker.Wait()
	said, status = cleanDemo(t, out)
	if status != 0 {
		t.Fatalf("clean-demo once s1 stopped: status %d, want 0:\n%s", status, said)
	}
	checkEmptiedKeepingGitkeep(t, out, said)
	_ = tail.Process.Kill() // the only process left naming out/
	_ = tail.Wait()
	waitNoLeftovers(t, out)
}
