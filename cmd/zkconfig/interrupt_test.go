package main_test

import (
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/internal/testkit/zktest"
)

// A set interrupted while its write is on its way does not know whether
// the write landed, and must not say it did: exit 0 would tell a script
// that the value is written. It exits 130 and says the write may or may
// not have landed. Here the server applied the write and the proxy holds
// its answer, so the outcome is unknown to set when SIGTERM comes.
func TestSetInterruptedMidWriteDoesNotClaimSuccess(t *testing.T) {
	t.Parallel()
	s := server(t)
	proxy := zktest.NewProxy(t, s)
	dir := fresh("/t/interrupted")
	mustRun(t, "set", "--servers", s, "--path", dir, "colour", "red")
	answered, release := proxy.HoldReply(faultproxy.OpSetData)
	defer release()
	set := start(t, "set", "--servers", proxy.Addr(), "--session-timeout", "4s", "--path", dir, "colour", "blue")
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatalf("the set never reached the server; stderr:\n%s", set.Stderr())
	}
	set.Term()
	code := waitExit(t, set, 5*time.Second, "set after SIGTERM")
	last := lastLine(set.Stderr())
	if code != 130 || !strings.Contains(last, "may or may not have landed") {
		t.Fatalf("exit %d, last line %q; want 130 and a line saying the write may or may not have landed", code, last)
	}
}
