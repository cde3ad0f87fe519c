package scripttest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// withoutEnv drops the variable name from cmd's environment.
func withoutEnv(cmd *exec.Cmd, name string) {
	cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
}

// tmuxOut runs tmux with args (and -S sock when sock is set) outside any
// tmux, and returns its trimmed output.
func tmuxOut(t *testing.T, sock string, args ...string) (string, error) {
	t.Helper()
	if sock != "" {
		args = append([]string{"-S", sock}, args...)
	}
	cmd := exec.Command("tmux", args...)
	cmd.Env = os.Environ()
	withoutEnv(cmd, "TMUX")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// dumpPanes logs what each pane of the session shows, when the test failed.
func dumpPanes(t *testing.T, sock, session string) {
	if !t.Failed() {
		return
	}
	panes, err := tmuxOut(t, sock, "list-panes", "-s", "-t", session, "-F", "#{pane_id}")
	if err != nil {
		return // no such session
	}
	for _, p := range strings.Fields(panes) {
		text, _ := tmuxOut(t, sock, "capture-pane", "-p", "-t", p)
		t.Logf("pane %s of %s:\n%s", p, session, text)
	}
}

// waitLines waits until file has at least n lines.
func waitLines(t *testing.T, file string, n int, deadline time.Time) {
	t.Helper()
	for {
		data, _ := os.ReadFile(file)
		if strings.Count(string(data), "\n") >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no speaker pane wrote to %s", file)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// demo-tmux.sh starts clean (no earlier run's lines or ensemble data),
// shows the live page's address inside its window, and demo-tmux.sh stop
// ends each speaker with SIGTERM, and waits for it, before it closes the
// panes and stops the ensemble: every speaker leaves the election (its
// znode is deleted) while ZooKeeper still runs.
func TestDemoTmuxStopsSpeakersCleanly(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux not found: run make test-tools")
	}
	dir := t.TempDir()
	killLeftovers(t, dir)
	base := freeBase(t)
	outFile := filepath.Join(dir, "out.txt")
	session := "zkspeaker-test-clean-" + strconv.Itoa(os.Getpid())
	env := []string{"DEMO_TMUX_DETACHED=1", "OUT=" + outFile, "TMUX_SESSION=" + session, fmt.Sprintf("ZK_BASE_PORT=%d", base)}
	leaveLeftovers(t, outFile, filepath.Join(dir, "ensemble"))
	cmd, out := demoCmd(t, dir, "demo-tmux.sh", env...)
	withoutEnv(cmd, "TMUX") // as from a terminal outside tmux
	t.Cleanup(func() { _, _ = tmuxOut(t, "", "kill-session", "-t", session) })
	t.Cleanup(func() { dumpPanes(t, "", session) })
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo-tmux.sh: %v\n%s", err, out)
	}
	checkPaneTitles(t, "", session)
	checkAddressShown(t, "", session, out.String())
	checkStartedClean(t, outFile, filepath.Join(dir, "ensemble"))

	servers := []string{fmt.Sprintf("127.0.0.1:%d", base), fmt.Sprintf("127.0.0.1:%d", base+1), fmt.Sprintf("127.0.0.1:%d", base+2)}
	rz := zktest.Connect(t, servers, 4*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var children []string
	for len(children) < 3 {
		if ctx.Err() != nil {
			t.Fatalf("want the 3 speakers' znodes in /election, found %q", children)
		}
		children, _ = rz.Children(ctx, "/election")
		time.Sleep(100 * time.Millisecond)
	}
	watches := map[string]<-chan zk.Event{}
	for _, c := range children {
		ok, _, ch, err := rz.ExistsW(ctx, "/election/"+c)
		if err != nil || !ok {
			t.Fatalf("exists /election/%s: %v, %v", c, ok, err)
		}
		watches[c] = ch
	}

	dumpPanes(t, "", session)
	stop, stopOut := demoCmd(t, dir, "demo-tmux.sh", env...)
	withoutEnv(stop, "TMUX")
	stop.Args = append(stop.Args, "stop")
	if err := stop.Run(); err != nil {
		t.Errorf("demo-tmux.sh stop: %v\n%s", err, stopOut)
	}
	for c, ch := range watches {
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDeleted {
				t.Errorf("/election/%s: %v, want it deleted by its speaker before ZooKeeper stopped", c, ev)
			}
		case <-time.After(3 * time.Second):
			t.Errorf("/election/%s was never deleted: its speaker did not leave the election before ZooKeeper stopped", c)
		}
	}
	rz.Close()
	waitNoLeftovers(t, dir)
}

// openPty opens a pseudo-terminal of 100x30: a master for the test, the
// slave as a tmux client's terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var unlock int32
	var n uint32
	ioctl := func(req uintptr, arg unsafe.Pointer) {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), req, uintptr(arg)); e != 0 {
			t.Fatalf("ioctl %#x on /dev/ptmx: %v", req, e)
		}
	}
	ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n))
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	ws := [4]uint16{30, 100, 0, 0} // rows, columns
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, s.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		t.Fatalf("TIOCSWINSZ: %v", e)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// make demo-tmux run from inside tmux: it opens its session on the same tmux
// server and switches the client to it (attach would refuse to nest).
// Leaving the session (switching back) ends the demo and stops everything,
// and the session it was started from lives on.
func TestDemoTmuxInsideTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux not found: run make test-tools")
	}
	dir := t.TempDir()
	killLeftovers(t, dir)
	// Not under dir: the tmux server and client are the test's, not leftovers.
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	if out, err := tmuxOut(t, sock, "new-session", "-d", "-s", "outer", "-x", "100", "-y", "30"); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { _, _ = tmuxOut(t, sock, "kill-server") })
	t.Cleanup(func() { dumpPanes(t, sock, "outer"); dumpPanes(t, sock, "zkspeaker-test-inside") })
	outerPane, _ := tmuxOut(t, sock, "display-message", "-p", "-t", "outer", "#{pane_id}")

	// A client on a terminal of its own, attached to outer: the user.
	master, slave := openPty(t)
	go func() { _, _ = io.Copy(io.Discard, master) }()
	client := exec.Command("tmux", "-S", sock, "attach", "-t", "outer")
	client.Env = os.Environ()
	withoutEnv(client, "TMUX")
	client.Env = append(client.Env, "TERM=xterm")
	client.Stdin, client.Stdout, client.Stderr = slave, slave, slave
	client.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Process.Kill(); _ = client.Wait() })
	clientSession := func() string {
		s, _ := tmuxOut(t, sock, "list-clients", "-F", "#{client_session}")
		return s
	}
	deadline := time.Now().Add(10 * time.Second)
	for clientSession() != "outer" {
		if time.Now().After(deadline) {
			t.Fatalf("the tmux client did not attach to outer: %q", clientSession())
		}
		time.Sleep(50 * time.Millisecond)
	}
	tty, _ := tmuxOut(t, sock, "list-clients", "-F", "#{client_tty}")

	// demo-tmux.sh typed in outer's pane: tmux sets TMUX and TMUX_PANE, and
	// the script's terminal is the pane.
	zktest.RequireZooKeeper(t)
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(dir, "out.txt")
	logFile, rcFile := filepath.Join(dir, "demo-tmux.log"), filepath.Join(dir, "demo-tmux.rc")
	session := "zkspeaker-test-inside"
	line := fmt.Sprintf("env OUT=%q TMUX_SESSION=%q ZK_BASE_PORT=%d ENSEMBLE_DIR=%q SPEAKER_BIN=%q ZKVIEW_BIN=%q ZKVIEW_LISTEN=127.0.0.1:0 bash %q >%q 2>&1; echo $? >%q",
		outFile, session, freeBase(t), filepath.Join(dir, "ensemble"), zktest.BuildSpeaker(t), zktest.BuildCommand(t, "zkview"),
		filepath.Join(root, "ensemble-scripts", "demo-tmux.sh"), logFile, rcFile)
	if o, err := tmuxOut(t, sock, "send-keys", "-t", outerPane, line, "Enter"); err != nil {
		t.Fatalf("send-keys: %v: %s", err, o)
	}
	output := func() string { data, _ := os.ReadFile(logFile); return string(data) }
	exited := func() (string, bool) {
		data, err := os.ReadFile(rcFile)
		return strings.TrimSpace(string(data)), err == nil && len(data) > 0
	}
	deadline = time.Now().Add(60 * time.Second)
	for clientSession() != session {
		if rc, ok := exited(); ok {
			t.Fatalf("demo-tmux.sh inside tmux ended (status %s) before the client switched to its session:\n%s", rc, output())
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client is on %q, want %s:\n%s", clientSession(), session, output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkPaneTitles(t, sock, session)
	waitLines(t, outFile, 2, deadline)

	// The user switches back (Ctrl-b L): the demo ends.
	if o, err := tmuxOut(t, sock, "switch-client", "-c", tty, "-t", "outer"); err != nil {
		t.Fatalf("switch-client back: %v: %s", err, o)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		if rc, ok := exited(); ok {
			if rc != "0" {
				t.Errorf("demo-tmux.sh exited %s:\n%s", rc, output())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo-tmux.sh still runs 30 s after the client left its session:\n%s", output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("demo-tmux.sh said:\n%s", output())
	if _, err := tmuxOut(t, sock, "has-session", "-t", session); err == nil {
		t.Errorf("tmux session %s outlived the demo", session)
	}
	if _, err := tmuxOut(t, sock, "has-session", "-t", "outer"); err != nil {
		t.Errorf("the demo's teardown ended the user's own session outer")
	}
	waitNoLeftovers(t, dir)
}
