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

	"zkspeaker/internal/ensemble"
	"zkspeaker/internal/testkit/zktest"
)

// ensembleScript runs ensemble-scripts/ensemble.sh with its own folder and
// base port, and stops what it started when the test ends.
type ensembleScript struct {
	t    *testing.T
	dir  string
	base int
}

func newEnsembleScript(t *testing.T) *ensembleScript {
	zktest.RequireZooKeeper(t)
	e := &ensembleScript{t: t, dir: filepath.Join(t.TempDir(), "ensemble"), base: freeBase(t)}
	t.Cleanup(func() { e.run("clean") })
	return e
}

// freeBase picks a base port for a 3-server ensemble.
func freeBase(t *testing.T) int {
	base, err := ensemble.FreeBase(3)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

func (e *ensembleScript) run(args ...string) (string, error) {
	root, err := zktest.RepoRoot()
	if err != nil {
		e.t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "ensemble-scripts", "ensemble.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "ENSEMBLE_DIR="+e.dir, fmt.Sprintf("ZK_BASE_PORT=%d", e.base), "ZK_TICK_MS=200")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *ensembleScript) must(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	if err != nil {
		e.t.Fatalf("ensemble.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// modes parses `status` into server id -> mode.
func (e *ensembleScript) modes() map[string]string {
	out := e.must("status")
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Fields(line)
		m[f[0]] = f[2]
	}
	return m
}

func count(modes map[string]string, mode string) (n int, id string) {
	for k, v := range modes {
		if v == mode {
			n, id = n+1, k
		}
	}
	return n, id
}

func TestEnsembleScript(t *testing.T) {
	t.Parallel()
	a := newEnsembleScript(t)
	out := a.must("start", "3")
	want := fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d", a.base, a.base+1, a.base+2)
	if !strings.Contains(out, want) {
		t.Fatalf("start printed %q, want the connection string %s", out, want)
	}
	// README: export ZK_SERVERS=$(ensemble-scripts/ensemble.sh servers)
	if got := a.must("servers"); got != want+"\n" {
		t.Errorf("servers printed %q, want %s alone", got, want)
	}
	if l, _ := count(a.modes(), "leader"); l != 1 {
		t.Fatalf("modes %v, want one leader", a.modes())
	}
	if f, _ := count(a.modes(), "follower"); f != 2 {
		t.Fatalf("modes %v, want two followers", a.modes())
	}

	// A second ensemble side by side, with its own ports and folder.
	b := newEnsembleScript(t)
	for b.base >= a.base-3 && b.base <= a.base+3 {
		b.base = freeBase(t)
	}
	b.must("start", "1")
	if m := b.modes(); m["1"] != "standalone" {
		t.Fatalf("second ensemble: %v, want a standalone server", m)
	}
	if got, want := b.must("servers"), fmt.Sprintf("127.0.0.1:%d\n", b.base); got != want {
		t.Errorf("servers of the second ensemble printed %q, want %q", got, want)
	}

	_, leader := count(a.modes(), "leader")
	a.must("kill", leader)
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := a.modes()
		if n, id := count(m, "leader"); n == 1 && id != leader && m[leader] == "down" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after kill %s: %v, want it down and a new leader", leader, m)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// start-server waits until the server has joined, so its own report
	// already names the mode, and status agrees.
	if out := a.must("start-server", leader); !strings.Contains(out, "started: follower") {
		t.Fatalf("start-server %s said %q, want it to report a follower", leader, out)
	}
	if m := a.modes(); m[leader] != "follower" {
		t.Fatalf("restarted server %s: %v, want follower", leader, m)
	}
	if _, err := a.run("kill", "7"); err == nil {
		t.Fatal("kill of a server that does not exist succeeded")
	}
	a.must("stop")
	if n, _ := count(a.modes(), "down"); n != 3 {
		t.Fatalf("after stop: %v", a.modes())
	}
	a.must("clean")
	if _, err := os.Stat(a.dir); !os.IsNotExist(err) {
		t.Fatalf("clean left %s", a.dir)
	}
	if m := b.modes(); m["1"] != "standalone" {
		t.Fatalf("stopping one ensemble touched the other: %v", m)
	}
}

// ensemble.sh finds its servers by their command lines, which name their
// zoo.cfg under its folder: losing the folder (a stray rm -rf) or the pid
// files does not hide them from status, start, stop or clean.
func TestEnsembleScriptFindsItsServers(t *testing.T) {
	t.Parallel()
	a := newEnsembleScript(t)
	killLeftovers(t, a.dir)
	a.must("start", "3")
	if err := os.RemoveAll(a.dir); err != nil {
		t.Fatal(err)
	}
	out := a.must("status")
	if m := a.modes(); len(m) != 3 || m["1"] == "down" || m["2"] == "down" || m["3"] == "down" {
		t.Fatalf("status without the folder: %v, want the three servers\n%s", m, out)
	}
	if n := len(strings.Fields(out)); n != 4*4 || strings.Contains(out, " -\n") {
		t.Errorf("status without the folder does not show every pid:\n%s", out)
	}
	if out, err := a.run("start", "3"); err == nil || !strings.Contains(out, "is running") {
		t.Errorf("start over running servers: %v, %q; want a refusal naming them", err, out)
	}
	a.must("stop")
	waitNoLeftovers(t, a.dir)

	// clean stops the servers before it deletes their data, pid files or not.
	a.must("start", "3")
	for i := 1; i <= 3; i++ {
		_ = os.Remove(filepath.Join(a.dir, fmt.Sprintf("zk%d", i), "server.pid"))
	}
	a.must("clean")
	waitNoLeftovers(t, a.dir)
	if _, err := os.Stat(a.dir); !os.IsNotExist(err) {
		t.Fatalf("clean left %s", a.dir)
	}
}

// procState is the state letter of /proc/PID/stat: R, S, T (stopped), ...
func procState(t *testing.T, pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("server process %d: %v", pid, err)
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f[0]
}

// ensemble.sh freeze ID SECONDS stops a server (SIGSTOP) for a while and
// resumes it (SIGCONT), on Ctrl-C too.
func TestEnsembleScriptFreeze(t *testing.T) {
	t.Parallel()
	a := newEnsembleScript(t)
	killLeftovers(t, a.dir)
	a.must("start", "3")
	var pid int
	for _, line := range strings.Split(a.must("status"), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "2" {
			pid, _ = strconv.Atoi(f[3])
		}
	}
	if pid == 0 {
		t.Fatalf("no pid for server 2 in status:\n%s", a.must("status"))
	}

	freeze := func(args ...string) (*exec.Cmd, *zktest.Buffer) {
		root, _ := zktest.RepoRoot()
		cmd := exec.Command("bash", append([]string{filepath.Join(root, "ensemble-scripts", "ensemble.sh"), "freeze"}, args...)...)
		cmd.Env = append(os.Environ(), "ENSEMBLE_DIR="+a.dir, fmt.Sprintf("ZK_BASE_PORT=%d", a.base))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out := &zktest.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGCONT)
		})
		return cmd, out
	}
	waitStopped := func(cmd *exec.Cmd, out *zktest.Buffer) {
		t.Helper()
		// The script's own start (bash, its status probe) comes first; a
		// busy machine was seen to take over 1.5 s for it.
		deadline := time.Now().Add(5 * time.Second)
		for procState(t, pid) != "T" {
			if time.Now().After(deadline) {
				t.Fatalf("server 2 (pid %d) is not stopped during the freeze (state %s):\n%s", pid, procState(t, pid), out)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// The freeze lasts its 2 s: the server is seen stopped for more than a
	// second of it (a busy machine can only see it later, not earlier),
	// and running again once the script has ended.
	start := time.Now()
	cmd, out := freeze("2", "2")
	waitStopped(cmd, out)
	first, last := time.Now(), time.Now()
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	var err error
watch:
	for {
		select {
		case err = <-ended:
			break watch
		case <-time.After(20 * time.Millisecond):
			if procState(t, pid) == "T" {
				last = time.Now()
			}
		}
	}
	if err != nil {
		t.Fatalf("freeze 2 2: %v\n%s", err, out)
	}
	if seen := last.Sub(first); seen < time.Second {
		t.Errorf("server 2 was seen stopped for %v of a 2 s freeze, want more than 1 s", seen)
	}
	if d := time.Since(start); d < 2*time.Second || d > 5*time.Second {
		t.Errorf("freeze 2 2 took %v, want about 2 s", d)
	}
	if s := procState(t, pid); s == "T" {
		t.Fatalf("server 2 still stopped after the freeze:\n%s", out)
	}
	t.Logf("freeze 2 2 said:\n%s", out)

	// Ctrl-C during a long freeze resumes the server.
	cmd, out = freeze("2", "60")
	waitStopped(cmd, out)
	if m := a.modes(); m["2"] != "frozen" {
		t.Errorf("status during the freeze: %v, want server 2 frozen", m)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("freeze exited 0 after Ctrl-C; want a failure status")
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("freeze 2 60 still running 5 s after Ctrl-C:\n%s", out)
	}
	if s := procState(t, pid); s == "T" {
		t.Fatalf("server 2 still stopped after Ctrl-C of the freeze:\n%s", out)
	}
	if m := a.modes(); m["2"] == "frozen" || m["2"] == "down" {
		t.Errorf("after the freezes: %v, want server 2 serving", m)
	}

	for _, bad := range [][]string{{"freeze", "7", "1"}, {"freeze", "2", "soon"}, {"freeze", "2"}} {
		if out, err := a.run(bad...); err == nil {
			t.Errorf("ensemble.sh %s succeeded: %q", strings.Join(bad, " "), out)
		}
	}
}

// A shell whose ZK_BASE_PORT differs from the one the ensemble was started
// with still finds its servers: status, servers and cli read the ports
// from the ensemble's own configuration, as they read the pids.
func TestEnsembleScriptReadsItsOwnPorts(t *testing.T) {
	t.Parallel()
	e := newEnsembleScript(t)
	killLeftovers(t, e.dir)
	e.must("start", "1")
	other := &ensembleScript{t: t, dir: e.dir, base: e.base + 7}
	if m := other.modes(); m["1"] != "standalone" {
		t.Errorf("status with ZK_BASE_PORT=%d: %v, want server 1 standalone on its own port %d:\n%s", other.base, m, e.base, other.must("status"))
	}
	want := fmt.Sprintf("127.0.0.1:%d", e.base)
	if got := strings.TrimSpace(other.must("servers")); got != want {
		t.Errorf("servers with ZK_BASE_PORT=%d: %q, want %q", other.base, got, want)
	}
}
