package main_test

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

// logLine returns the first line of a speaker's log that holds every one of
// parts, or "".
func logLine(log string, parts ...string) string {
	for _, line := range strings.Split(log, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return line
		}
	}
	return ""
}

// The server grants a session timeout between 2 and 20 ticks (zktest's
// servers allow up to zktest.MaxSessionTimeout), whatever the speaker asks
// for. Every bound in README counts from the granted one, so a speaker
// whose request was changed says so, with both values and the server's
// bound; one whose request was granted says nothing.
func TestGrantedSessionTimeoutIsWarnedAbout(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	minimum := 2 * zktest.TickTime
	for _, tc := range []struct {
		ask   time.Duration
		grant time.Duration
		bound string // the server's setting named in the warning, or ""
	}{
		{ask: 100 * time.Millisecond, grant: minimum, bound: "minSessionTimeout"},
		{ask: 2 * zktest.MaxSessionTimeout, grant: zktest.MaxSessionTimeout, bound: "maxSessionTimeout"},
		{ask: 2 * time.Second, grant: 2 * time.Second},
	} {
		p := zktest.RunSpeaker(t, "--servers", cluster.ConnString(), "--path", zktest.Path(t), "--session-timeout", tc.ask.String(),
			"--out", filepath.Join(t.TempDir(), "out.txt"), "--interval", "100ms")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		err := p.WaitForStderr(ctx, "joined the election")
		cancel()
		if err != nil {
			t.Fatalf("--session-timeout %v: %v\n%s", tc.ask, err, p.Stderr())
		}
		if got := logLine(p.Stderr(), "msg=connected", fmt.Sprintf("timeout=%v", tc.grant)); got == "" {
			t.Fatalf("--session-timeout %v: no connected line with timeout=%v (this test's premise)\n%s", tc.ask, tc.grant, p.Stderr())
		}
		if tc.bound != "" { // the warning comes from its own goroutine: give it time
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = p.WaitForStderr(ctx, tc.bound+"=")
			cancel()
		}
		warning := logLine(p.Stderr(), "level=WARN", "session timeout")
		if tc.bound == "" {
			if warning != "" {
				t.Errorf("--session-timeout %v was granted, yet: %s", tc.ask, warning)
			}
			continue
		}
		for _, want := range []string{fmt.Sprintf("asked=%v", tc.ask), fmt.Sprintf("granted=%v", tc.grant), fmt.Sprintf("%s=%v", tc.bound, tc.grant)} {
			if !strings.Contains(warning, want) {
				t.Errorf("--session-timeout %v: warning %q, want %s in it\n%s", tc.ask, warning, want, p.Stderr())
			}
		}
	}
}

// Ctrl-C is the way to stop a speaker: nothing has gone wrong, so from
// "shutting down" to its exit a leader logs at INFO only.
func TestCtrlCIsLoggedAtInfo(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for _, election := range []string{"sequential", "single-file"} {
		p := zktest.RunSpeaker(t, "--servers", cluster.ConnString(), "--election", election, "--path", zktest.Path(t)+"-"+election,
			"--out", filepath.Join(t.TempDir(), "out.txt"), "--interval", "100ms")
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := p.WaitForStderr(ctx, "started speaking"); err != nil {
			t.Fatalf("%s: %v\n%s", election, err, p.Stderr())
		}
		p.Signal(os.Interrupt)
		if code, err := p.Wait(ctx); err != nil || code != 0 {
			t.Fatalf("%s: Ctrl-C: exit %d, %v; want 0\n%s", election, code, err, p.Stderr())
		}
		_, after, ok := strings.Cut(p.Stderr(), "no longer the leader")
		lines := strings.Split(strings.TrimSpace(after), "\n")[1:]
		if !ok || !strings.Contains(after, "shut down") {
			t.Fatalf("%s: no shutdown of a leader in the log:\n%s", election, p.Stderr())
		}
		for _, line := range lines {
			if !strings.Contains(line, "level=INFO") {
				t.Errorf("%s: after Ctrl-C: %s", election, line)
			}
		}
	}
}
