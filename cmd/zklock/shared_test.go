package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Two `zklock --shared` hold at once: each reader's CMD runs until both
// have started, which could never happen if one waited for the other. A
// plain zklock, the writer, queues behind them, and its CMD starts only
// after both readers' CMDs have ended.
func TestSharedHoldersOverlapAndAWriterWaits(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	dir := t.TempDir()
	file, gate := filepath.Join(dir, "held.txt"), filepath.Join(dir, "gate")
	// A reader: "start", then, once both readers have started and the test
	// opens the gate, "end".
	reader := func(name string) []string {
		return []string{"--shared", "--name", name, "--", "/bin/sh", "-c", fmt.Sprintf(
			`echo "start %[1]s $ZKLOCK_EPOCH" >> %[2]s; until [ "$(grep -c start %[2]s)" -ge 2 ] && [ -e %[3]s ]; do sleep 0.02; done; echo "end %[1]s $ZKLOCK_EPOCH" >> %[2]s`,
			name, file, gate)}
	}
	r1, r2 := run(t, cluster.ConnString(), reader("r1")...), run(t, cluster.ConnString(), reader("r2")...)
	waitForLine(t, file, "start r1")
	waitForLine(t, file, "start r2")
	w := run(t, cluster.ConnString(), "--name", "w", "--", "/bin/sh", "-c", fmt.Sprintf(`echo "start w $ZKLOCK_EPOCH" >> %s`, file))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.WaitForStderr(ctx, "waiting in line"); err != nil {
		t.Fatalf("the writer never queued: %v\n%s", err, w.Stderr())
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*zktest.Process{r1, r2, w} {
		if code := wait(t, p, 10*time.Second); code != 0 {
			t.Fatalf("zklock exited %d\n%s", code, p.Stderr())
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[4], "start w ") || !strings.HasPrefix(lines[2], "end ") || !strings.HasPrefix(lines[3], "end ") {
		t.Fatalf("CMDs wrote %q; want both readers' start, both their ends, then the writer's start", lines)
	}
	if !strings.Contains(r1.Stderr(), "mode=read") || !strings.Contains(w.Stderr(), "mode=write") {
		t.Errorf("the logs do not say which lock each takes:\n%s\n%s", r1.Stderr(), w.Stderr())
	}
}
