package main_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
)

// TestPageShowsReadersWritersLeasesAndARevoke reads the lock panel as real
// zklock processes contend: two readers hold together, a writer waits for
// the reader just ahead, a reader behind it waits for the writer; a revoke
// request shows on both holders; once the readers go the writer holds. On
// a semaphore of two leases, a third contender holds the gate, and takes a
// lease when one goes. Each change shows without a reload.
func TestPageShowsReadersWritersLeasesAndARevoke(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	s := strings.Join(servers, ",")
	url, _ := serve(t, "--servers", s, "--lock", "/view-report")
	p := open(t, url)
	within := time.Second + electiontest.Slack

	procs := map[string]*zktest.Process{}
	want := ""
	for _, c := range []struct{ name, mode, role string }{
		{"ann", "--shared", "holder"}, {"bob", "--shared", "holder"}, {"carol", "", "waiting"}, {"dave", "--shared", "waiting"},
	} {
		args := []string{"--servers", s, "--path", "/view-report", "--name", c.name}
		if c.mode != "" {
			args = append(args, c.mode)
		}
		procs[c.name] = zktest.Run(t, tool("zklock"), append(args, "--", "sleep", "60")...)
		want = strings.TrimSpace(want + " " + c.name + "=" + c.role)
		p.await("the lock's line", 10*time.Second, want, func() string { return p.roles("lock") })
	}
	p.await("each one's mode", within, "ann=read bob=read carol=write dave=read", func() string { return p.attr("lock", "mode") })
	p.await("whom each waiter waits for", within, "carol>bob dave>carol", func() string {
		return p.eval(`[...document.querySelectorAll("#lock .arrow[data-waiter]")].map(e => e.dataset.waiter + ">" + e.dataset.waits).join(" ")`)
	})
	p.await("who holds, in words", within, "held by ann, bob: 2 readers, sharing", func() string {
		return p.eval(`document.querySelector("#lock .summary").textContent`)
	})

	// A revoke request: both readers hold, so both are asked; neither
	// is --revocable, so both hold on, marked.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := lock.Revoke(ctx, zktest.Connect(t, servers, 5*time.Second), "/view-report", lock.RequestedBy("carol")); err != nil {
		t.Fatal(err)
	}
	p.await("the revoke request on the holders", within, "ann=carol bob=carol", func() string {
		return p.eval(`[...document.querySelectorAll("#lock [data-revoke]")].map(e => e.closest("[data-name]").dataset.name + "=" + e.dataset.revoke).join(" ")`)
	})
	procs["ann"].Signal(syscall.SIGTERM)
	procs["bob"].Signal(syscall.SIGTERM)
	p.await("the writer holding", within+5*time.Second, "carol=holder dave=waiting", func() string { return p.roles("lock") })

	// A semaphore of two leases, on another zkview in the same tab.
	url, _ = serve(t, "--servers", s, "--lock", "/view-render")
	if err := chromedp.Do(p.tab, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	want = ""
	for i, name := range []string{"r1", "r2", "r3"} {
		procs[name] = zktest.Run(t, tool("zklock"), "--servers", s, "--path", "/view-render", "--leases", "2", "--name", name, "--", "sleep", "60")
		want = strings.TrimSpace(want + " " + []string{"r1=holder", "r2=holder", "r3=gate"}[i])
		p.await("the semaphore", 10*time.Second, want, func() string { return p.roles("lock") })
	}
	leases := func() string {
		return p.eval(`(e => e ? e.dataset.used + " of " + e.dataset.leases : "none")(document.querySelector("#lock .summary.leases"))`)
	}
	p.await("the leases in use", within, "2 of 2", leases)
	procs["r1"].Signal(syscall.SIGTERM)
	p.await("the gate's holder taking the lease that went", within+5*time.Second, "r2=holder r3=holder", func() string { return p.roles("lock") })
	p.await("the leases in use", within, "2 of 2", leases)
}

// attr is, for each card in the panel, its data-name=data-<name>.
func (p *page) attr(panel, name string) string {
	return p.eval(`[...document.querySelectorAll("#` + panel + ` .cand[data-name]")].map(e => e.dataset.name + "=" + (e.dataset.` + name + ` || "")).join(" ")`)
}
