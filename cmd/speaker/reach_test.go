package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/ensemble"
	"zkspeaker/internal/testkit/zktest"
)

// TestNoZooKeeper runs status and a speaker where nothing listens. Status
// must answer at once with one line that says so and how to start one; the
// speaker and status --watch, which run until stopped, wait, and say the
// same once.
func TestNoZooKeeper(t *testing.T) {
	t.Parallel()
	zktest.BuildSpeaker(t) // not timed below
	base, err := ensemble.FreeBase(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", base)
	hint := "no ZooKeeper answers at " + addr + ": start one with ensemble-scripts/ensemble.sh start 3"

	for _, args := range [][]string{{"status"}, {"status", "--election", "single-file"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			p := zktest.RunSpeaker(t, append(args, "--servers", addr)...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			code, err := p.Wait(ctx)
			took := time.Since(start)
			if err != nil || code != 1 {
				t.Fatalf("exit %d, %v; want 1", code, err)
			}
			// The bound is 2 s; the rest is slack for a loaded machine.
			if took > 4*time.Second {
				t.Errorf("took %v to say that nothing answers, want about 2 s at most", took)
			}
			lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], hint) {
				t.Errorf("stderr, want one line with %q:\n%s", hint, p.Stderr())
			}
			if p.Stdout() != "" {
				t.Errorf("stdout, want nothing:\n%s", p.Stdout())
			}
		})
	}

	t.Run("speaker", func(t *testing.T) {
		t.Parallel()
		zktest.ExpectWaitsWithoutZooKeeper(t, addr, 0, zktest.BuildSpeaker(t), "--servers", addr, "--out", filepath.Join(t.TempDir(), "out.txt"))
	})
	t.Run("status --watch", func(t *testing.T) {
		t.Parallel()
		zktest.ExpectWaitsWithoutZooKeeper(t, addr, 0, zktest.BuildSpeaker(t), "status", "--watch", "--servers", addr)
	})
}

// TestStatusInterrupted presses Ctrl-C while status waits for a session
// from a server that answers but has lost its ensemble's majority, so
// opens none. Status stops quietly.
func TestStatusInterrupted(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	cluster.Kill(1)
	cluster.Kill(2)
	p := zktest.RunSpeaker(t, "status", "--servers", cluster.Server(0))
	time.Sleep(1500 * time.Millisecond) // past the check that something answers
	p.Signal(syscall.SIGINT)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Errorf("status on Ctrl-C: exit %d, %v; want 0\n%s", code, err, p.Stderr())
	}
	if p.Stderr() != "" || p.Stdout() != "" {
		t.Errorf("status on Ctrl-C printed something, want nothing:\nstdout:\n%s\nstderr:\n%s", p.Stdout(), p.Stderr())
	}
}
