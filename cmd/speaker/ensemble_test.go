package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// In a 3-server ensemble, losing any one server, the ZooKeeper leader
// included, moves the speakers' sessions to another server: the same
// speaker keeps speaking, never silent for a whole session timeout. Losing
// quorum for less than the session timeout changes no leader either.
func TestFaultEnsembleServers(t *testing.T) {
	t.Parallel()
	// One ensemble, one repetition at a time: restarting two JVMs and
	// electing a leader must fit in the session timeout, and three
	// ensembles restarting at once on two cores made it take 15 s.
	cluster := zktest.Start(t, 3)
	for rep := 0; rep < electiontest.Reps(); rep++ {
		t.Run(fmt.Sprint(rep), func(t *testing.T) {
			// Sessions of the longest the test servers grant: restarting
			// two JVMs and electing a ZooKeeper leader takes 6 to 8 s on a
			// quiet 2-core machine, and over 12 s under make test's load,
			// and the scenario needs quorum back before the session could
			// expire.
			cfg := fleetConfig{election: "sequential", policy: "at-most-one", session: zktest.MaxSessionTimeout,
				interval: 100 * time.Millisecond, names: []string{"a", "b"}, direct: cluster.Servers()}
			f := startFleet(t, cluster, cfg)
			speaker := f.leader(3)
			start := time.Now()

			zkLeader := cluster.Leader()
			for _, i := range []int{zkLeader, (zkLeader + 1) % 3, (zkLeader + 2) % 3} {
				cluster.Kill(i)
				time.Sleep(time.Second)
				cluster.Start(i)
				cluster.WaitServing(i)
				if l := f.leader(1); l != speaker {
					t.Fatalf("after server %d went down, %s speaks instead of %s", i, l.name, speaker.name)
				}
			}
			time.Sleep(5 * cfg.interval)
			if gap := maxGap(f.linesOf(speaker.name), start, time.Now()); gap >= cfg.session {
				t.Fatalf("%s was silent for %v, not less than the session timeout", speaker.name, gap)
			}

			// Quorum lost for less than the session timeout, then back.
			down := []int{(cluster.Leader() + 1) % 3, (cluster.Leader() + 2) % 3}
			lost := time.Now()
			for _, i := range down {
				cluster.Kill(i)
			}
			time.Sleep(3 * time.Second) // well within the session, whose length is for the restarts
			cluster.StartMany(down...)
			for i := 0; i < 3; i++ {
				cluster.WaitServing(i)
			}
			restored := time.Now()
			t.Logf("quorum lost for %v", restored.Sub(lost))
			if outage := restored.Sub(lost); outage >= cfg.session {
				// Then expiry is right, and this is not the scenario we test.
				t.Fatalf("quorum was lost for %v, not less than the session timeout %v: the servers restarted too slowly", outage, cfg.session)
			}
			electiontest.Eventually(t, cfg.session, speaker.name+" speaks again", func() bool {
				return between(f.linesOf(speaker.name), restored, time.Now()) >= 2
			})
			if ts := f.terms(); len(ts) != 1 || ts[0].Name != speaker.name {
				t.Fatalf("terms %+v: want %s alone after quorum came back", ts, speaker.name)
			}
			noOrphans(t, cluster, "sequential", f.path, 2)
		})
	}
}

// A ZooKeeper server that stops answering (SIGSTOP: a long GC pause, a hung
// machine) leaves its clients' connections open and silent until their
// receive timeout. Meanwhile each line's confirm times out against it. That
// is the confirm's own deadline, not a lost connection, and no retry
// follows it: the log must not say "retry" for it, once per line. Retries
// logged after the connection really dropped are real ones.
func TestFrozenServerLogsOnlyRealRetries(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	var followers []string // a frozen ZooKeeper leader would start an election too
	for i := 0; i < 3; i++ {
		if i != cluster.Leader() {
			followers = append(followers, cluster.Server(i))
		}
	}
	p := zktest.RunSpeaker(t, "--servers", strings.Join(followers, ","), "--session-timeout", "4s",
		"--interval", "200ms", "--out", filepath.Join(t.TempDir(), "out.txt"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.WaitForStderr(ctx, "started speaking"); err != nil {
		t.Fatalf("no leader: %v\n%s", err, p.Stderr())
	}
	frozen := -1
	for i := 0; i < 3; i++ {
		if strings.HasSuffix(logLine(p.Stderr(), "msg=connected"), "server="+cluster.Server(i)) {
			frozen = i
		}
	}
	if frozen < 0 {
		t.Fatalf("cannot tell which server the speaker is connected to:\n%s", p.Stderr())
	}
	cluster.Freeze(frozen)
	err := p.WaitForStderr(ctx, "msg=reconnected")
	cluster.Thaw(frozen)
	if err != nil {
		t.Fatalf("no reconnect to the other server: %v\n%s", err, p.Stderr())
	}
	time.Sleep(time.Second) // lines, and confirms, on the new connection
	for _, line := range strings.Split(p.Stderr(), "\n") {
		if strings.Contains(line, "retry") && strings.Contains(line, "context ") {
			t.Errorf("a retry logged for the caller's own deadline: %s", line)
		}
	}
}
