package scripttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// demoCmd prepares ensemble-scripts/<script> with its own folder and ports,
// in its own process group, as a terminal would run it.
func demoCmd(t *testing.T, dir, script string, env ...string) (*exec.Cmd, *zktest.Buffer) {
	t.Helper()
	zktest.RequireZooKeeper(t)
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(root, "ensemble-scripts", script))
	cmd.Env = append(os.Environ(), append([]string{"DEMO_FAST=1", "DEMO_OUT=" + dir, "ENSEMBLE_DIR=" + filepath.Join(dir, "ensemble"),
		fmt.Sprintf("ZK_BASE_PORT=%d", freeBase(t)), "SPEAKER_BIN=" + zktest.BuildSpeaker(t),
		"ZKVIEW_BIN=" + zktest.BuildCommand(t, "zkview"), "ZKVIEW_LISTEN=127.0.0.1:0"}, env...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &zktest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return cmd, out
}

// leftovers lists the processes whose command line mentions dir: the
// speakers (--out) and ZooKeeper servers (their config) a demo started.
func leftovers(dir string) []string {
	var found []string
	for _, cmdline := range leftoverPids(dir) {
		found = append(found, cmdline)
	}
	return found
}

// leftoverPids maps the pid of each process whose command line mentions dir
// to that command line.
func leftoverPids(dir string) map[int]string {
	found := map[int]string{}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte(dir)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		found[pid] = strings.ReplaceAll(string(data), "\x00", " ")
	}
	return found
}

// killLeftovers is a test's last resort: SIGKILL whatever still names dir,
// so that a failing test leaves no JVMs behind for the next.
func killLeftovers(t *testing.T, dir string) {
	t.Cleanup(func() {
		for pid := range leftoverPids(dir) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// waitNoLeftovers gives processes a moment to go, then names any left.
func waitNoLeftovers(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(leftovers(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := leftovers(dir); len(left) > 0 {
		t.Fatalf("the demo left %d processes running:\n%s", len(left), strings.Join(left, "\n"))
	}
}

// make demo, fast: it runs to the end, its timeline shows at least two
// handovers and no anomaly, and nothing it started is left running.
func TestDemo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, out := demoCmd(t, dir, "demo.sh")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo.sh: %v\n%s", err, out)
	}
	t.Logf("demo.sh (DEMO_FAST=1) took %v", time.Since(start).Round(time.Second))
	m := regexp.MustCompile(`(\d+) writers, (\d+) terms, (\d+) anomalies`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no timeline in the demo's output:\n%s", out)
	}
	if terms, _ := strconv.Atoi(m[2]); terms < 3 || m[3] != "0" {
		t.Fatalf("timeline: %s terms and %s anomalies, want at least 3 terms (two handovers) and none:\n%s", m[2], m[3], out)
	}
	for _, step := range []string{"Step 1: SIGTERM", "Step 2: SIGKILL", "Step 3: SIGKILL ZooKeeper server", "Step 4: the timeline"} {
		if !strings.Contains(out.String(), step) {
			t.Errorf("the demo did not announce %q", step)
		}
	}
	checkDemoPicture(t, filepath.Join(dir, "demo"), out.String())
	// zkview served the live page throughout, and the end stopped it.
	if !regexp.MustCompile(`Watch it live in a browser: http://127\.0\.0\.1:\d+/`).MatchString(out.String()) {
		t.Errorf("the demo printed no address of its live page:\n%s", out)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "demo", "zkview.log")); !strings.Contains(string(log), "stopped serving the page") {
		t.Errorf("zkview did not stop at the demo's end; its log:\n%s", log)
	}
	// Not a terminal: plain headings, no escape sequences.
	if i := strings.IndexByte(out.String(), 0x1b); i >= 0 {
		t.Errorf("the demo's output, not a terminal, holds an ESC byte: %q", out.String()[max(0, i-20):min(len(out.String()), i+20)])
	}
	waitNoLeftovers(t, dir)
}

// make demo beside an ensemble already running in its folder refuses and
// touches nothing: the server keeps serving, its folder stays. Then,
// without its pid file, ensemble.sh stop still finds and stops it. One
// server is as much an ensemble running there as three, at a third of
// the start-up.
func TestDemoRefusesARunningEnsemble(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := &ensembleScript{t: t, dir: filepath.Join(dir, "ensemble"), base: freeBase(t)}
	t.Cleanup(func() { _, _ = e.run("clean") })
	killLeftovers(t, dir)
	e.must("start", "1")

	cmd, out := demoCmd(t, dir, "demo.sh", fmt.Sprintf("ZK_BASE_PORT=%d", e.base))
	if err := cmd.Run(); err == nil {
		t.Fatalf("demo.sh ran beside a running ensemble:\n%s", out)
	}
	if want := "an ensemble is already running in " + e.dir; !strings.Contains(out.String(), want) {
		t.Errorf("demo.sh did not say %q:\n%s", want, out)
	}
	if strings.Contains(out.String(), "are stopped") {
		t.Errorf("demo.sh claims it stopped everything, yet started nothing:\n%s", out)
	}
	if m := e.modes(); len(m) != 1 || m["1"] != "standalone" {
		t.Errorf("after demo.sh: modes %v, want the server still serving", m)
	}
	for _, f := range []string{"servers", "zk1/zoo.cfg", "zk1/data/version-2", "zk1/server.pid"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err != nil {
			t.Errorf("demo.sh touched the running ensemble's folder: %v", err)
		}
	}

	_ = os.Remove(filepath.Join(e.dir, "zk1", "server.pid"))
	if out := e.must("stop"); strings.Count(out, "stopped") != 1 {
		t.Errorf("stop without its pid file said %q, want the server stopped", out)
	}
	waitNoLeftovers(t, dir)
}

// Ctrl-C in the middle of the demo stops everything it started.
func TestDemoInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, out := demoCmd(t, dir, "demo.sh")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "Step 1:") {
		if time.Now().After(deadline) {
			t.Fatalf("the demo never reached step 1:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(leftovers(dir)) < 4 {
		t.Fatalf("expected servers and speakers running before Ctrl-C, found %q", leftovers(dir))
	}
	// A terminal sends SIGINT to the whole foreground process group.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	if err := cmd.Wait(); err == nil {
		t.Errorf("demo.sh exited 0 after Ctrl-C; want a failure status")
	}
	waitNoLeftovers(t, dir)
}

// make demo-tmux, detached: the panes run, a speaker writes, and stop
// leaves nothing behind.
func TestDemoTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux not found: run make test-tools")
	}
	dir := t.TempDir()
	outFile := filepath.Join(dir, "out.txt")
	env := []string{"DEMO_TMUX_DETACHED=1", "OUT=" + outFile, "TMUX_SESSION=zkspeaker-test-" + strconv.Itoa(os.Getpid())}
	cmd, out := demoCmd(t, dir, "demo-tmux.sh", env...)
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo-tmux.sh: %v\n%s", err, out)
	}
	stop, stopOut := demoCmd(t, dir, "demo-tmux.sh", env...)
	stop.Args = append(stop.Args, "stop")
	defer func() {
		dumpPanes(t, "", env[2][len("TMUX_SESSION="):])
		if err := stop.Run(); err != nil {
			t.Errorf("demo-tmux.sh stop: %v\n%s", err, stopOut)
		}
		waitNoLeftovers(t, dir)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(outFile)
		if bytes.Count(data, []byte("\n")) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no speaker pane wrote to %s", outFile)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// 3 servers, 3 speakers and the tail; the panes' shells may be slow to
	// start on a busy machine.
	for len(leftovers(dir)) < 3+3+1 {
		if time.Now().After(deadline) {
			t.Fatalf("want 3 servers, 3 speakers and tail running in the panes, found %q", leftovers(dir))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
