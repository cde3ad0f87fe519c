package main_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// TestPageFollowsTheElection runs three speakers on a 3-server ensemble
// and reads the page as a browser shows it: the line of candidates with
// its leader; after SIGTERM of the leader, the next one leads, without a
// reload, and the gap is drawn on the strip; after SIGKILL of that one,
// the last leads once the dead session expires; and each server's mode.
func TestPageFollowsTheElection(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	cluster := zktest.Shared(t)
	out := filepath.Join(t.TempDir(), "out.txt")
	const session, interval = time.Second, 100 * time.Millisecond
	url, _ := serve(t, "--servers", cluster.ConnString(), "--out", out)
	p := open(t, url)

	speakers := map[string]*zktest.Process{}
	want := ""
	for _, name := range []string{"speaker-1", "speaker-2", "speaker-3"} {
		speakers[name] = zktest.Run(t, tool("speaker"), "--servers", cluster.ConnString(), "--name", name,
			"--interval", interval.String(), "--session-timeout", session.String(), "--out", out)
		role := "waiting"
		if want == "" {
			role = "leader"
		}
		want += map[bool]string{true: "", false: " "}[want == ""] + name + "=" + role
		p.await("the candidates in line", 10*time.Second, want, func() string { return p.roles("election") })
	}
	p.await("each server's mode", 5*time.Second, "follower follower leader", func() string {
		return p.eval(`[...document.querySelectorAll("[data-server]")].map(e => e.dataset.mode).sort().join(" ")`)
	})

	// A graceful exit deletes the leader's znode: one notification, and the
	// page shows the successor within a second of it.
	speakers["speaker-1"].Signal(syscall.SIGTERM)
	took := p.await("speaker-2 leading after SIGTERM of speaker-1", time.Second+electiontest.Slack,
		"speaker-2=leader speaker-3=waiting", func() string { return p.roles("election") })
	t.Logf("after SIGTERM of the leader, the page showed the new leader %v later", took.Round(time.Millisecond))
	p.await("the gap drawn on the strip", time.Second+interval+electiontest.Slack, "true", func() string {
		return p.eval(`document.querySelectorAll("#out .gaplabel").length > 0`)
	})

	// A SIGKILLed leader's znode goes only when its session expires.
	speakers["speaker-2"].Signal(syscall.SIGKILL)
	bound := session + zktest.TickTime + time.Second + electiontest.Slack
	took = p.await("speaker-3 leading after SIGKILL of speaker-2", bound,
		"speaker-3=leader", func() string { return p.roles("election") })
	t.Logf("after SIGKILL of the leader, the page showed the new leader %v later (session %v)", took.Round(time.Millisecond), session)
	p.await("the event log telling of the expiry", time.Second, "true", func() string {
		return p.eval(`[...document.querySelectorAll("#events li")].some(e => e.textContent.includes("speaker-2 left the sequential election"))`)
	})
}
