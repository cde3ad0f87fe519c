package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// TestPageFollowsTheRecipes reads the page as the other recipes work: a
// single-file election and its handover, the
// lock's queue and its handover, a group's members and one leaving, a
// configuration key set twice, and a sequence handing out IDs under its
// persistence leader. Each change shows without a reload, within a second
// of ZooKeeper's notification; then 120 changes of one key measure that
// second (measureLatency).
func TestPageFollowsTheRecipes(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	s := strings.Join(servers, ",")
	url, _ := serve(t, "--servers", s, "--single-file", "/view-speaker", "--lock", "/view-lock", "--group", "/view-zoo", "--config", "/view-config",
		"--seqid", "/view-sequences", "--seqid-election", "/view-persist")
	p := open(t, url)
	within := time.Second + electiontest.Slack

	// The single-file election: one holds the znode, the other waits for
	// it to go (the servers' watch lists name it); then the holder leaves.
	// A reader that watches the znode too, as `speaker status --watch`
	// does, is no candidate and is not shown as one.
	zktest.Run(t, tool("speaker"), "status", "--watch", "--servers", s, "--election", "single-file", "--path", "/view-speaker")
	out := t.TempDir() + "/out.txt"
	single := map[string]*zktest.Process{}
	for i, name := range []string{"solo-1", "solo-2"} {
		single[name] = zktest.Run(t, tool("speaker"), "--servers", s, "--election", "single-file", "--path", "/view-speaker",
			"--name", name, "--out", out, "--interval", "100ms")
		p.await("the single-file election", 10*time.Second, []string{"solo-1=leader", "solo-1=leader solo-2=waiting"}[i],
			func() string { return p.roles("single") })
	}
	single["solo-1"].Signal(syscall.SIGTERM)
	p.await("the single-file election handed over", within, "solo-2=leader", func() string { return p.roles("single") })

	// The lock: the first holds it, the second waits; the first ends and
	// the lock passes on.
	holders := map[string]*zktest.Process{}
	want := ""
	for i, name := range []string{"holder-1", "holder-2"} {
		holders[name] = zktest.Run(t, tool("zklock"), "--servers", s, "--path", "/view-lock", "--name", name, "--", "sleep", "60")
		want += []string{"holder-1=holder", " holder-2=waiting"}[i]
		p.await("the lock's queue", 10*time.Second, want, func() string { return p.roles("lock") })
	}
	holders["holder-1"].Signal(syscall.SIGTERM)
	p.await("the lock handed over", within, "holder-2=holder", func() string { return p.roles("lock") })

	// The group: two members, then one leaves.
	run(t, tool("zkgroup"), "create", "--servers", s, "view-zoo")
	members := map[string]*zktest.Process{}
	for _, m := range []string{"ann", "bob"} {
		members[m] = zktest.Run(t, tool("zkgroup"), "join", "--servers", s, "view-zoo", m)
	}
	p.await("the group's members", 10*time.Second, "ann=member bob=member", func() string { return p.roles("group") })
	members["ann"].Signal(syscall.SIGTERM)
	p.await("ann gone from the group", within, "bob=member", func() string { return p.roles("group") })

	// The configuration: a key, then a new value of it.
	keyShown := func() string {
		return p.eval(`[...document.querySelectorAll("#config [data-key]")].map(e => e.dataset.key + "@" + e.dataset.version + "=" + e.children[1].textContent).join(" ")`)
	}
	for v, value := range []string{"red", "blue"} {
		run(t, tool("zkconfig"), "set", "--servers", s, "--path", "/view-config", "colour", value)
		p.await("the key's value", within, fmt.Sprintf("colour@%d=%s", v, value), keyShown)
	}

	// A sequence: its persistence leader, and the next ID moving on.
	seq := []string{"--servers", s, "--root", "/view-sequences"}
	run(t, tool("seqid"), append(append([]string{"create"}, seq...), "orders")...)
	zktest.Run(t, tool("seqid"), append(append([]string{"persist"}, seq...), "--election", "/view-persist", "--name", "keeper", "--store", t.TempDir())...)
	p.await("the persistence leader", 10*time.Second, "keeper=leader", func() string { return p.roles("sequences") })
	run(t, tool("seqid"), append(append([]string{"next"}, seq...), "--count", "5", "orders")...)
	p.await("the next ID after five", within, "6", func() string {
		return p.eval(`document.querySelector("#sequences [data-sequence=orders]")?.dataset.next`)
	})

	// How soon a change reaches the page, on the same page.
	measureLatency(t, p, "/view-config")
}

// run runs a command to its end and fails the test unless it succeeds.
func run(t *testing.T, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ZK_SERVERS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
}
