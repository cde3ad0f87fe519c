package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Under at-most-one a connection lost and back within the session does not
// cost the holder its CMD: CMD is frozen the moment the connection goes,
// so it never acts while the lock is unproved, and thawed once the lock is
// proved ours again. Here CMD ignores SIGTERM, as the did: stopped
// for good it would have died by SIGKILL, status 137. It runs to its end
// and zklock exits 0.
func TestABlipFreezesCMDAndTheReconnectThawsIt(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	file := filepath.Join(t.TempDir(), "held.txt")
	// About 3 s of ticks, 40 ms apart, that no SIGTERM stops.
	p := zktest.Run(t, zklockBin(t), "--servers", proxy.Addr(), "--session-timeout", "4s", "--path", zktest.Path(t), "--", "/bin/sh", "-c",
		fmt.Sprintf(`trap "" TERM; i=0; while [ $i -lt 75 ]; do echo "tick $ZKLOCK_EPOCH $(date +%%s%%N)" >> %s; sleep 0.04; i=$((i+1)); done`, file))
	waitForLine(t, file, "tick")
	proxy.Reset()
	time.Sleep(100 * time.Millisecond)
	proxy.Restore()
	if code := wait(t, p, 20*time.Second); code != 0 {
		t.Fatalf("exit %d, want 0: CMD should have run to its end\n%s", code, p.Stderr())
	}
	errOut := p.Stderr()
	frozen := strings.Index(errOut, "CMD and all it started frozen (SIGSTOP)")
	thawed := strings.Index(errOut, "the lock is still ours: CMD and all it started thawed (SIGCONT)")
	if frozen < 0 || thawed < frozen {
		t.Errorf("the log does not say that CMD was frozen, then thawed:\n%s", errOut)
	}
	if strings.Contains(errOut, "the lock is lost") {
		t.Errorf("the log says the lock was lost, but it was not:\n%s", errOut)
	}
	if n := len(readRecords(t, file)); n != 75 {
		t.Errorf("CMD wrote %d ticks, want all 75", n)
	}
}

// Under at-least-one, CMD runs on while the connection is lost, until the
// moment the session may expire; then the watchdog kills it. zklock ran
// all along: its log and the watchdog's say that the servers stopped
// answering, never that zklock was frozen.
func TestAtLeastOnesKillSaysTheServersStoppedAnswering(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	file := filepath.Join(t.TempDir(), "held.txt")
	p := run(t, proxy.Addr(), append([]string{"--policy", "at-least-one"}, holds(file, 10000)...)...)
	waitForLine(t, file, "tick")
	cut := time.Now()
	proxy.Cut()
	if code := wait(t, p, 3*session); code != 128+9 {
		t.Fatalf("exit %d, want 137: the watchdog kills CMD at its deadline\n%s", code, p.Stderr())
	}
	recs := readRecords(t, file)
	if last := recs[len(recs)-1].at; last.After(cut.Add(session)) {
		t.Errorf("CMD wrote %v after the cut, past the session of %v", last.Sub(cut).Round(time.Millisecond), session)
	}
	errOut := p.Stderr()
	for _, want := range []string{"could not move CMD's deadline on after", `because="the servers stopped answering and CMD's deadline came`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the log does not say %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "frozen?") || strings.Contains(errOut, "stood still") {
		t.Errorf("the log blames a frozen zklock, which ran all along:\n%s", errOut)
	}
}
