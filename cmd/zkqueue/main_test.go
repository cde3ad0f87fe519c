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
)

var (
	// servers is the standalone server TestMain starts (none under -short).
	servers []string
	// bin is the zkqueue binary TestMain builds.
	bin string
)

// TestMain builds zkqueue once and starts one real server for the package.
func TestMain(m *testing.M) { os.Exit(zktest.MainCommand(m, &servers, &bin)) }

// run runs zkqueue to its end: stdout, stderr, exit status.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("zkqueue %s did not end: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// ok runs zkqueue, which must exit 0, and returns its stdout.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := run(t, args...)
	if code != 0 {
		t.Fatalf("zkqueue %s: status %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
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
