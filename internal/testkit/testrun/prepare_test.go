package main

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// wait returns only once the command has ended, and prints what it said.
func TestPrepareWaitsForTheCommandAndPrintsIt(t *testing.T) {
	t.Parallel()
	p := prepare(t.TempDir(), "sleep 0.3; echo built; pwd >/dev/null")
	var out strings.Builder
	var mu sync.Mutex
	p.wait(&out, &mu)
	if p.took < 300*time.Millisecond {
		t.Errorf("wait returned after %v, before the command's 300 ms sleep ended", p.took)
	}
	if got := out.String(); got != "built\n" {
		t.Errorf("wait printed %q, want the command's output", got)
	}
}

// A failed command is reported, and the run goes on; no command is done
// at once.
func TestPrepareReportsAFailure(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	var mu sync.Mutex
	prepare(t.TempDir(), "echo no; exit 3").wait(&out, &mu)
	if got := out.String(); !strings.Contains(got, "no\n") || !strings.Contains(got, "-prepare failed (exit status 3)") {
		t.Errorf("wait printed %q, want the output and the failure", got)
	}
	out.Reset()
	prepare(t.TempDir(), "").wait(&out, &mu)
	if out.Len() != 0 {
		t.Errorf("an empty command printed %q", out.String())
	}
}
