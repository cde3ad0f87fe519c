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
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	file := filepath.Join(t.TempDir(), "held.txt")
	// About 3 s of ticks, 40 ms apart, that no SIGTERM stops.
	p := zktest.Run(t, zklockBin(t), "--servers", proxy.Addr(), "--session-timeout", "4s", "--", "/bin/sh", "-c",
		fmt.Sprintf(`trap "" TERM; i=0; while [ $i -lt 75 ]; do echo "tick $ZKLOCK_EPOCH $(date +%%s%%N)" >> %s; sleep 0.04; i=$((i+1)); done`, file))
	waitForLine(t, file, "tick")
	proxy.Reset()
	time.Sleep(100 * time.Millisecond)
	proxy.Restore()
	if code := wait(t, p, 20*time.Second); code != 0 {
		t.Fatalf("exit %d, want 0: CMD should have run to its end\n%s", code, p.Stderr())
	}
	errOut := p.Stderr()
	frozen := strings.Index(errOut, "CMD frozen (SIGSTOP)")
	thawed := strings.Index(errOut, "the lock is still ours: CMD thawed (SIGCONT)")
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
