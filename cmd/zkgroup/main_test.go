package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

var (
	// servers is the standalone server TestMain starts (none under -short).
	servers []string
	// bin is the zkgroup binary TestMain builds.
	bin string
)

// TestMain builds zkgroup once, starts one real server for the package,
// and fails the package when its tests leave a goroutine running.
func TestMain(m *testing.M) { os.Exit(zktest.MainCommand(m, &servers, &bin)) }

// needServer skips a test under -short, which starts no ZooKeeper.
func needServer(t *testing.T) {
	t.Helper()
	zktest.SkipShort(t)
}

// run runs zkgroup to its end: stdout, stderr, exit status.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("zkgroup %s did not end: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// want runs zkgroup and checks its stdout, stderr and status exactly.
func want(t *testing.T, stdout, stderr string, code int, args ...string) {
	t.Helper()
	out, errOut, c := run(t, args...)
	if out != stdout || errOut != stderr || c != code {
		t.Fatalf("zkgroup %s:\n got status %d, stdout %q, stderr %q\nwant status %d, stdout %q, stderr %q",
			strings.Join(args, " "), c, out, errOut, code, stdout, stderr)
	}
}

// start starts zkgroup in the background; the test's end stops it.
func start(t *testing.T, args ...string) *zktest.Process {
	t.Helper()
	return zktest.Run(t, bin, args...)
}

// waitOut waits until p's stdout contains s.
func waitOut(t *testing.T, p *zktest.Process, s string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(p.Stdout(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("stdout never said %q within %v; stdout:\n%s\nstderr:\n%s", s, d, p.Stdout(), p.Stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exitWithin waits for p to exit and returns its status.
func exitWithin(t *testing.T, p *zktest.Process, d time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, p.Stderr())
	}
	return code
}

// joinProc starts `zkgroup join` and waits until it is a member.
func joinProc(t *testing.T, server, groupName, member string, extra ...string) *zktest.Process {
	t.Helper()
	args := append([]string{"join", "-s", server}, extra...)
	p := start(t, append(args, groupName, member)...)
	waitOut(t, p, "joined /"+strings.TrimPrefix(groupName, "/")+"/"+member+"\n", 20*time.Second)
	return p
}

// admin is a session of the test's own, to look at what zkgroup did.
func admin(t *testing.T) *recoverable.RecoverableZookeeper {
	t.Helper()
	return zktest.Connect(t, servers, 2*time.Second)
}

// exists reports whether path is a znode.
func exists(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, _, err := rz.Exists(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// createGroup runs `zkgroup create name`, checks its output, and deletes
// whatever is left of the group when the test ends, so that -count=2
// starts afresh.
func createGroup(t *testing.T, name string, extra ...string) {
	t.Helper()
	want(t, "created /"+name+"\n", "", 0, append(append([]string{"create", "-s", servers[0]}, extra...), name)...)
	rz := admin(t)
	t.Cleanup(func() { removeAll(rz, "/"+name) })
}

// removeAll deletes path and everything under it, as far as it can.
func removeAll(rz *recoverable.RecoverableZookeeper, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	children, _ := rz.Children(ctx, path)
	for _, c := range children {
		removeAll(rz, path+"/"+c)
	}
	_ = rz.Delete(ctx, path, -1)
}
