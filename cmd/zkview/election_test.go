package main_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// probe is how often zkview asks the servers (live.probeEvery): a process
// that dies or stops shows only when they are asked.
const probe = 500 * time.Millisecond

// TestPageFollowsTheElection runs three speakers on a 3-server ensemble
// and reads the page as a browser shows it: the line of candidates with
// its leader, and what a zkview started later finds of it; after SIGTERM
// of the leader, the next one leads, without a reload, and the strip
// splits the gap into idle time and the handover; after SIGKILL of that
// one, its card counts its session down until it expires and the last one
// leads; stopped with SIGSTOP, that one shows as paused until its session
// expires too; and each server's mode.
func TestPageFollowsTheElection(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	cluster := zktest.Shared(t)
	out := filepath.Join(t.TempDir(), "out.txt")
	const session, interval = 4 * time.Second, 100 * time.Millisecond
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
	// What the servers last heard of a session is known from a look at
	// them while it was connected.
	p.await("every candidate seen connected", 5*time.Second, "connected connected connected", func() string {
		return p.eval(`[...document.querySelectorAll("#election .cand")].map(e => e.dataset.life).join(" ")`)
	})
	foundAtStart(t, cluster.ConnString(), out, []string{"speaker-1", "speaker-2", "speaker-3"})

	// A graceful exit deletes the leader's znode: one notification, and the
	// page shows the successor within a second of it.
	speakers["speaker-1"].Signal(syscall.SIGTERM)
	took := p.await("speaker-2 leading after SIGTERM of speaker-1", time.Second+electiontest.Slack,
		"speaker-2=leader speaker-3=waiting", func() string { return p.roles("election") })
	t.Logf("after SIGTERM of the leader, the page showed the new leader %v later", took.Round(time.Millisecond))
	p.await("the gap on the strip split into idle time and the handover", time.Second+interval+electiontest.Slack, "true", func() string {
		return p.eval(`document.querySelectorAll("#out rect.idle").length > 0 && document.querySelectorAll("#out rect.handover").length > 0 &&
			[...document.querySelectorAll("#out .gaplabel")].some(e => /^handover (\d+ ms|shorter than zkview can time)$/.test(e.textContent))`)
	})

	// A SIGKILLed leader's znode goes only when its session expires: its
	// card counts that down meanwhile.
	speakers["speaker-2"].Signal(syscall.SIGKILL)
	countdown(t, p, "speaker-2", session)
	p.await("speaker-3 leading", zktest.TickTime+time.Second, "speaker-3=leader", func() string { return p.roles("election") })
	p.await("the event log telling of the death and the expiry", time.Second, "true", func() string {
		return p.eval(`[...document.querySelectorAll("#events li")].map(e => e.textContent).join("\n").includes("speaker-2's process is gone (not connected)") &&
			[...document.querySelectorAll("#events li")].some(e => e.textContent.includes("speaker-2 left the sequential election: its session expired"))`)
	})

	// A stopped leader is connected still, but the servers stop hearing
	// from it: paused, until its session expires.
	speakers["speaker-3"].Signal(syscall.SIGSTOP)
	p.await("speaker-3 shown as paused", session/2+probe+time.Second+electiontest.Slack, "silent leader · paused", func() string {
		return p.eval(`(e => e ? e.dataset.life + " " + e.querySelector(".role").textContent : "gone")(document.querySelector("#election [data-name=speaker-3]"))`)
	})
	p.await("speaker-3's session expired", session+zktest.TickTime+time.Second+electiontest.Slack, "", func() string { return p.roles("election") })
}

// expiresIn reads "session expires in 3.2 s" on a card.
var expiresIn = regexp.MustCompile(`^session expires in (\d+\.\d) s$`)

// countdown holds a killed candidate's card to what the servers know: its
// session counting down within a second of the kill, going down, and the
// card leaving when the count ends, give or take the servers' tick, the
// one ping the last look may have missed, and zkview's look.
func countdown(t *testing.T, p *page, name string, session time.Duration) {
	t.Helper()
	killed := time.Now()
	read := func() string {
		return p.eval(`document.querySelector("#election [data-name=` + name + `] .countdown")?.textContent ?? ""`)
	}
	var first string
	p.await(name+"'s card counting its session down", time.Second+electiontest.Slack, "true", func() string {
		first = read()
		return strconv.FormatBool(expiresIn.MatchString(first))
	})
	seen := time.Now()
	t.Logf("%v after the kill, %s's card says %q", seen.Sub(killed).Round(time.Millisecond), name, first)
	left, _ := strconv.ParseFloat(expiresIn.FindStringSubmatch(first)[1], 64)
	if left <= 0 || left > session.Seconds() {
		t.Fatalf("%s's card says %q, want a time within its %v session", name, first, session)
	}
	p.await("the count going down", time.Second, "true", func() string {
		m := expiresIn.FindStringSubmatch(read())
		if m == nil {
			return "no count: " + read()
		}
		now, _ := strconv.ParseFloat(m[1], 64)
		return strconv.FormatBool(now < left)
	})
	ends := seen.Add(time.Duration(left * float64(time.Second)))
	gone := func() string {
		return strconv.FormatBool(p.eval(`document.querySelector("#election [data-name=`+name+`]") === null`) == "true")
	}
	p.await(name+"'s card leaving", time.Until(ends)+session/3+probe+2*zktest.TickTime+electiontest.Slack, "true", gone)
	if early := time.Until(ends); early > 200*time.Millisecond {
		t.Errorf("%s's card left %v before its count ended: the count was too long", name, early.Round(time.Millisecond))
	}
	t.Logf("%s's card left %v after its count ended", name, -time.Until(ends).Round(time.Millisecond))
}
