package main_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

var elections = []string{"sequential", "single-file"}

// A leader frozen past its session (SIGSTOP, as a long GC pause or a closed
// laptop lid) must write nothing once it wakes, and rejoin as a follower. A
// short freeze changes nothing. The freezes land between two of its lines,
// never inside one (fleet.freeze).
func TestFaultFrozenLeader(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	// An expiry is the engine's, whatever the election (its fake walks
	// it): one election runs here.
	for _, election := range []string{"sequential"} {
		for rep := 0; rep < electiontest.Reps(); rep++ {
			t.Run(fmt.Sprintf("%s/%d", election, rep), func(t *testing.T) {
				t.Parallel()
				cfg := fleetConfig{election: election, policy: "at-most-one", session: 2 * time.Second,
					interval: 200 * time.Millisecond, names: []string{"a", "b"}}
				f := startFleet(t, cluster, cfg)
				old := f.leader(3)

				// 0.3 x S: the session survives; the same leader goes on.
				f.freeze(old)
				time.Sleep(3 * cfg.session / 10)
				old.proc.Cont()
				time.Sleep(5 * cfg.interval)
				if ts := f.terms(); len(ts) != 1 || f.leader(1) != old {
					t.Fatalf("a freeze of 0.3 x S changed the leader: %+v", ts)
				}

				// 2 x S: the session expires and the other one takes over.
				f.freeze(old)
				stopped := time.Now()
				terms := electiontest.WaitTerms(t, f.out, 2*cfg.session+5*time.Second, "a successor speaks",
					func(ts []electiontest.Term) bool { return len(ts) == 2 })
				if gap, bound := terms[1].First.Sub(stopped), electiontest.TakeoverBound(cfg.session, cfg.interval); gap > bound {
					t.Errorf("successor spoke %v after the freeze, want within %v", gap, bound)
				}
				time.Sleep(time.Until(stopped.Add(2 * cfg.session)))
				old.proc.Cont()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := old.proc.WaitForStderr(ctx, "session expired; new session"); err != nil {
					t.Fatalf("the thawed leader never saw its session expire: %v", err)
				}
				time.Sleep(5 * cfg.interval)
				f.terms() // fails if the thawed leader wrote after its successor began
				noOrphans(t, cluster, election, f.path, 2)
			})
		}
	}
}

// A reset connection, shorter than the session, leaves the session alive.
// At-most-one falls silent within an interval and resumes the same term;
// at-least-one keeps speaking. Nobody else takes over.
func TestFaultConnectionReset(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for _, policy := range []string{"at-most-one", "at-least-one"} {
		for rep := 0; rep < electiontest.Reps(); rep++ {
			t.Run(fmt.Sprintf("%s/%d", policy, rep), func(t *testing.T) {
				t.Parallel()
				cfg := fleetConfig{election: "sequential", policy: policy, session: 4 * time.Second,
					interval: 100 * time.Millisecond, names: []string{"a", "b"}}
				f := startFleet(t, cluster, cfg)
				old := f.leader(3)
				old.proxy.Reset()
				reset := time.Now()
				time.Sleep(4 * cfg.session / 10)
				old.proxy.Restore()
				restored := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := old.proc.WaitForStderr(ctx, "reconnected"); err != nil {
					t.Fatalf("no reconnect: %v", err)
				}
				// Resuming takes a confirm's round trip, then an interval:
				// bounded by the session, which a busy machine never needs
				// all of, rather than by a count of intervals.
				electiontest.Eventually(t, cfg.session, "the leader resumes", func() bool {
					return between(f.linesOf(old.name), restored, time.Now()) >= 2
				})
				if ts := f.terms(); len(ts) != 1 {
					t.Fatalf("terms %+v: someone else took over during a short reset", ts)
				}
				lines := f.linesOf(old.name)
				during := between(lines, reset.Add(cfg.interval), restored)
				switch policy {
				case "at-most-one":
					if during != 0 {
						t.Fatalf("at-most-one wrote %d lines while disconnected", during)
					}
				case "at-least-one":
					if gap := maxGap(lines, reset, restored); gap > 3*cfg.interval {
						t.Fatalf("at-least-one went silent for %v while paused", gap)
					}
				}
			})
		}
	}
}

// A silent partition of the leader, longer than the session: the others
// elect a successor, whose first line comes after the old leader's last;
// healed, the old leader rejoins as a follower. This holds under
// at-least-one too: a paused leader that still speaks stops before the
// session can have expired, timed from the last word of the server, not
// from the moment its client noticed the silence (two thirds of S later).
func TestFaultSilentPartition(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	// The single-file election's pause is the same engine's (its fake
	// walks it under both policies): the sequential one runs here.
	for _, tc := range []struct{ election, policy string }{
		{"sequential", "at-most-one"}, {"sequential", "at-least-one"},
	} {
		election := tc.election
		for rep := 0; rep < electiontest.Reps(); rep++ {
			t.Run(fmt.Sprintf("%s/%s/%d", election, tc.policy, rep), func(t *testing.T) {
				t.Parallel()
				cfg := fleetConfig{election: election, policy: tc.policy, session: 2 * time.Second,
					interval: 100 * time.Millisecond, names: []string{"a", "b", "c"}}
				f := startFleet(t, cluster, cfg)
				old := f.leader(3)
				old.proxy.Cut()
				cut := time.Now()
				terms := electiontest.WaitTerms(t, f.out, 3*cfg.session, "a successor speaks",
					func(ts []electiontest.Term) bool { return len(ts) == 2 })
				if gap, bound := terms[1].First.Sub(cut), electiontest.TakeoverBound(cfg.session, cfg.interval); gap > bound {
					t.Errorf("successor spoke %v after the cut, want within %v", gap, bound)
				}
				time.Sleep(time.Until(cut.Add(3 * cfg.session)))
				old.proxy.Heal()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := old.proc.WaitForStderr(ctx, "session expired; new session"); err != nil {
					t.Fatalf("the healed leader never learned its session expired: %v", err)
				}
				time.Sleep(5 * cfg.interval)
				ts := f.terms() // the old leader's last line precedes the new leader's first
				if ts[0].Name != old.name || ts[len(ts)-1].Name == old.name {
					t.Fatalf("terms %+v: want %s first and someone else now", ts, old.name)
				}
				noOrphans(t, cluster, election, f.path, 3)
			})
		}
	}
}

// A create whose reply is lost: the server made the znode, the client never
// heard. Recoverable finds it by its owner; there is one znode, and the
// candidate queues, then leads, normally.
func TestFaultLostCreateReply(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for _, election := range elections {
		for rep := 0; rep < electiontest.Reps(); rep++ {
			t.Run(fmt.Sprintf("%s/%d", election, rep), func(t *testing.T) {
				t.Parallel()
				cfg := fleetConfig{election: election, policy: "at-most-one", session: 2 * time.Second,
					interval: 100 * time.Millisecond, names: []string{"first"}}
				f := startFleet(t, cluster, cfg)
				first := f.leader(2)
				prefix := f.path + "/"
				if election == "single-file" {
					prefix = f.path
				}
				var trapped *zktest.Proxy
				late := f.add(cluster, cfg, "late", func(p *zktest.Proxy) { p.ResetAfterCreate(prefix); trapped = p })
				select {
				case <-trapped.Fired():
				case <-time.After(10 * time.Second):
					t.Fatal("the create's reply was never dropped: the test proved nothing")
				}
				noOrphans(t, cluster, election, f.path, 2)
				first.proc.Term()
				terms := electiontest.WaitTerms(t, f.out, 10*time.Second, "the late candidate leads",
					func(ts []electiontest.Term) bool { return len(ts) == 2 })
				if terms[1].Name != late.name {
					t.Fatalf("terms %+v, want %s to lead after %s left", terms, late.name, first.name)
				}
				noOrphans(t, cluster, election, f.path, 1)
			})
		}
	}
}
