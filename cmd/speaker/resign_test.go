package main_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
)

// TestResignOnSIGUSR1: SIGUSR1 to a follower changes nothing; SIGUSR1 to
// the leader hands over as a graceful exit does (the successor's first line
// within the session timeout, no overlap, every counter exact) and leaves
// the old leader running, in line again: last in the sequential line.
func TestResignOnSIGUSR1(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	// Resign is the engine's for both elections (its fake walks each
	// outcome): one election runs here.
	for _, election := range []string{"sequential"} {
		t.Run(election, func(t *testing.T) {
			t.Parallel()
			path := zktest.Path(t)
			out := filepath.Join(t.TempDir(), "out.txt")
			procs := speakersWith(t, []string{"--path", path}, cluster.ConnString(), out, election, 100*time.Millisecond, "a", "b", "c")
			first := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) == 1 && ts[0].Lines >= 2 })
			leader := first[0].Name

			follower := map[string]string{"a": "b", "b": "c", "c": "a"}[leader]
			procs[follower].Signal(syscall.SIGUSR1)
			waitStderr(t, procs[follower], "nothing to resign")
			time.Sleep(300 * time.Millisecond)
			if ts := electiontest.ReadTerms(t, out, false); len(ts) != 1 || ts[0].Name != leader {
				t.Fatalf("after SIGUSR1 to the follower %s, terms %+v: want %s alone", follower, ts, leader)
			}

			sent := time.Now()
			procs[leader].Signal(syscall.SIGUSR1)
			terms := electiontest.WaitTerms(t, out, sessionTimeout, "a successor speaks", func(ts []electiontest.Term) bool { return len(ts) == 2 })
			gap := terms[1].First.Sub(sent)
			t.Logf("SIGUSR1 to %s; %s spoke %v later", leader, terms[1].Name, gap)
			if gap >= sessionTimeout {
				t.Fatalf("successor's first line came %v after SIGUSR1, want before the session timeout %v (a handover, not an expiry)", gap, sessionTimeout)
			}
			if terms[0].Last.After(terms[1].First) {
				t.Fatalf("%s wrote at %v, after its successor's first line at %v", leader, terms[0].Last, terms[1].First)
			}
			waitStderr(t, procs[leader], "resigned: stopped speaking and left the line")
			if election == "sequential" {
				rz := zktest.Connect(t, cluster.Servers(), 4*time.Second)
				electiontest.Eventually(t, 5*time.Second, leader+" last in line", func() bool {
					v, _, err := nodemonitor.Inspect(context.Background(), rz, path)
					return err == nil && len(v.Seats) == 3 && v.Seats[2].Data == leader
				})
			}
			// Long enough for a single-file resigner to race again, and
			// lose: the new leader holds the znode.
			time.Sleep(1500 * time.Millisecond)
			terms = electiontest.ReadTerms(t, out, false)
			if len(terms) != 2 {
				t.Fatalf("terms %+v: want two, the resigner not back", terms)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			if code, err := procs[leader].Wait(ctx); err == nil {
				t.Fatalf("%s exited (%d) after SIGUSR1; it should run on, in line", leader, code)
			}
		})
	}
}

// waitStderr waits until p logged s.
func waitStderr(t *testing.T, p *zktest.Process, s string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.WaitForStderr(ctx, s); err != nil {
		t.Fatalf("never logged %q: %v\n%s", s, err, p.Stderr())
	}
}
