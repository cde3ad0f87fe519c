package main_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// TestPageShowsABarriersCountAndWhoIsInside reads the barrier panel as real
// zkbarrier processes enter a double barrier of three: two wait, counted
// 2 of 3; the third opens it and all three are inside; one asked to stop
// leaves, and the others stay inside. Each change shows without a reload.
func TestPageShowsABarriersCountAndWhoIsInside(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	s := strings.Join(servers, ",")
	url, _ := serve(t, "--servers", s, "--barrier", "/view-step")
	p := open(t, url)
	within := time.Second + electiontest.Slack
	count := func() string {
		return p.eval(`(e => e ? e.dataset.in + " of " + e.dataset.count : "none")(document.querySelector("#barrier .summary"))`)
	}
	p.await("the empty barrier", 10*time.Second, "", func() string { return p.roles("barrier") })

	procs := map[string]*zktest.Process{}
	want := ""
	for i, name := range []string{"ann", "bob"} {
		procs[name] = zktest.Run(t, tool("zkbarrier"), "run", "--servers", s, "--count", "3", "--name", name, "/view-step", "--", "sleep", "60")
		want = strings.TrimSpace(want + " " + name + "=waiting")
		p.await("the members waiting", 10*time.Second, want, func() string { return p.roles("barrier") })
		p.await("the count", within, []string{"1 of 3", "2 of 3"}[i], count)
	}
	procs["cid"] = zktest.Run(t, tool("zkbarrier"), "run", "--servers", s, "--count", "3", "--name", "cid", "/view-step", "--", "sleep", "60")
	p.await("all three inside", 10*time.Second, "ann=inside bob=inside cid=inside", func() string { return p.roles("barrier") })
	p.await("the round open", within, "open", func() string { return p.eval(`document.querySelector("#barrier .summary b").textContent`) })

	procs["bob"].Signal(syscall.SIGTERM) // its sleep stops, and it leaves
	p.await("bob gone, the others inside", within+5*time.Second, "ann=inside cid=inside", func() string { return p.roles("barrier") })
}

// TestPageShowsAQueuesItemsClaimsAndTheLastTaken reads the queue panel as
// real zkqueue processes put and take: items in the order of takes, the
// priority first; an at-least-once consumer's claim, and the item back
// once that consumer is killed and its session expires; then an
// at-most-once take, the last taken. Each change shows without a reload.
func TestPageShowsAQueuesItemsClaimsAndTheLastTaken(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	s := strings.Join(servers, ",")
	url, _ := serve(t, "--servers", s, "--queue", "/view-jobs")
	p := open(t, url)
	within := time.Second + electiontest.Slack
	items := func() string {
		return p.eval(`[...document.querySelectorAll("#queue tr[data-item]")].map(e => e.dataset.value + (e.dataset.claimed ? "(claimed)" : "")).join(" ")`)
	}
	last := func() string {
		return p.eval(`(e => e ? e.dataset.last + " " + e.dataset.how : "none")(document.querySelector("#queue .summary.last[data-last]"))`)
	}
	run(t, tool("zkqueue"), "put", "--servers", s, "/view-jobs", "a")
	p.await("the first item", 10*time.Second, "a", items)
	run(t, tool("zkqueue"), "put", "--servers", s, "--priority", "5", "/view-jobs", "b")
	p.await("the urgent item first", within, "b a", items)

	const session = 2 * time.Second
	consumer := zktest.Run(t, tool("zkqueue"), "take", "--servers", s, "--session-timeout", session.String(), "--follow",
		"--delivery", "at-least-once", "--work", "60s", "/view-jobs")
	p.await("b claimed", 10*time.Second, "b(claimed) a", items)
	p.await("the last taken", within, "b claimed", last)

	consumer.Signal(syscall.SIGKILL) // dies holding the claim: its session expires
	p.await("b back in the queue", within+2*session, "b a", items)

	run(t, tool("zkqueue"), "take", "--servers", s, "/view-jobs")
	p.await("b taken", within, "a", items)
	p.await("the last taken", within, "b taken", last)
}
