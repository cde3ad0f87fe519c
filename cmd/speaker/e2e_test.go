package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

const (
	tick           = 200 * time.Millisecond // zktest's tickTime
	sessionTimeout = 2 * time.Second
)

// speakers starts one speaker per name, all on the same out file, and waits
// until the first one speaks.
func speakers(t *testing.T, servers, out string, election string, interval time.Duration, names ...string) map[string]*zktest.Process {
	t.Helper()
	return speakersWith(t, nil, servers, out, election, interval, names...)
}

// speakersWith is speakers with extra flags for each.
func speakersWith(t *testing.T, extra []string, servers, out string, election string, interval time.Duration, names ...string) map[string]*zktest.Process {
	t.Helper()
	procs := map[string]*zktest.Process{}
	for _, name := range names {
		args := []string{"--servers", servers, "--election", election, "--name", name,
			"--out", out, "--interval", interval.String(), "--session-timeout", sessionTimeout.String()}
		procs[name] = zktest.RunSpeaker(t, append(args, extra...)...)
		// Wait until it is in the race, so that they queue in name order.
		joined := "joined the election"
		if election == "single-file" {
			joined = "the leader znode" // "created the leader znode" or "another candidate holds the leader znode"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		err := procs[name].WaitForStderr(ctx, joined)
		cancel()
		if err != nil {
			t.Fatalf("%s did not start: %v\n%s", name, err, procs[name].Stderr())
		}
	}
	return procs
}

func TestFailover(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for i := 0; i < electiontest.Reps()*2; i++ {
		election := []string{"sequential", "single-file"}[i%2]
		// SIGHUP is what a closed terminal window sends: it must hand over
		// as SIGTERM does, not leave the znode until the session expires.
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
			t.Run(fmt.Sprintf("%s/%s/%d", election, zktest.SignalName(sig), i/2), func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(t.TempDir(), "out.txt")
				procs := speakersWith(t, []string{"--path", zktest.Path(t)}, cluster.ConnString(), out, election, time.Second, "a", "b", "c")
				first := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) == 1 && ts[0].Lines >= 2 })
				leader := first[0].Name
				sent := time.Now()
				procs[leader].Signal(sig)
				// The bounds are the session timeout: a leader that leaves
				// gracefully deletes its znode, so neither its exit nor the
				// successor's first line may wait for the session to expire.
				// How fast it really is belongs to speaker bench.
				ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
				defer cancel()
				if code, err := procs[leader].Wait(ctx); err != nil || code != 0 {
					t.Fatalf("%v: exit %d, %v; want 0 within %v", sig, code, err, sessionTimeout)
				}
				terms := electiontest.WaitTerms(t, out, 5*time.Second, "a successor speaks", func(ts []electiontest.Term) bool { return len(ts) == 2 })
				gap := terms[1].First.Sub(sent)
				t.Logf("%v to %s; %s spoke %v later", sig, leader, terms[1].Name, gap)
				if gap >= sessionTimeout {
					t.Fatalf("successor's first line came %v after %v, want before the session timeout %v (a handover, not an expiry)", gap, sig, sessionTimeout)
				}
			})
		}
		t.Run(fmt.Sprintf("%s/SIGKILL/%d", election, i/2), func(t *testing.T) {
			t.Parallel()
			const interval = time.Second
			out := filepath.Join(t.TempDir(), "out.txt")
			procs := speakersWith(t, []string{"--path", zktest.Path(t)}, cluster.ConnString(), out, election, interval, "a", "b", "c")
			first := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) == 1 && ts[0].Lines >= 2 })
			leader := first[0].Name
			killed := time.Now()
			procs[leader].Kill()
			terms := electiontest.WaitTerms(t, out, 10*time.Second, "a successor speaks", func(ts []electiontest.Term) bool { return len(ts) == 2 })
			gap := terms[1].First.Sub(killed)
			bound := sessionTimeout + tick + interval
			t.Logf("SIGKILL to %s; %s spoke %v later (bound %v)", leader, terms[1].Name, gap, bound)
			if gap > bound {
				t.Fatalf("successor's first line came %v after SIGKILL, want within S+tick+interval = %v", gap, bound)
			}
			if terms[0].Last.After(killed) {
				t.Fatalf("the killed leader wrote at %v, after it was killed at %v", terms[0].Last, killed)
			}
		})
	}
}

func TestBadInputExits2WithOneLineAndCreatesNothing(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1) // its own: the test wants nothing but /zookeeper at the end
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out", "out.txt")
	// A copy of the speaker alone in a folder: chaos --recipe lock looks
	// for zklock beside it, and make test's speaker has it beside.
	lone := loneCopy(t, zktest.BuildSpeaker(t))
	for _, tc := range []struct {
		flag string
		args []string
		sub  string // a subcommand, given --servers but not --out
	}{
		{flag: "servers", args: []string{"--servers", ""}},
		{flag: "servers", args: []string{"--servers", "localhost"}},
		{flag: "servers", args: []string{"--servers", "localhost:0"}},
		{flag: "servers", args: []string{"--servers", "localhost:65536"}},
		{flag: "servers", args: []string{"--servers", "localhost:http"}},
		{flag: "servers", args: []string{"--servers", cluster.ConnString() + ",:2181"}},
		{flag: "interval", args: []string{"--interval", "0s"}},
		{flag: "interval", args: []string{"--interval", "-1s"}},
		{flag: "interval", args: []string{"--interval", "soon"}},
		{flag: "session-timeout", args: []string{"--session-timeout", "0"}},
		{flag: "session-timeout", args: []string{"--session-timeout", "5"}},
		{flag: "path", args: []string{"--path", "election"}},
		{flag: "path", args: []string{"--path", "/election/"}},
		{flag: "path", args: []string{"--path", "/a//b"}},
		{flag: "path", args: []string{"--path", "/a/./b"}},
		{flag: "path", args: []string{"--path", "/a/../b"}},
		{flag: "path", args: []string{"--path", "/zookeeper/quota"}},
		{flag: "path", args: []string{"--path", "/election\u0085"}},
		{flag: "path", args: []string{"--path", "/election\uf8ff"}, sub: "status"},
		{flag: "election", args: []string{"--election", "raft"}},
		{flag: "watch", args: []string{"--watch", "everyone"}},
		{flag: "watch", args: []string{"--election", "single-file", "--watch", "children"}},
		{flag: "policy", args: []string{"--policy", "at-most-two"}},
		{flag: "name", args: []string{"--name", "two words"}},
		{flag: "name", args: []string{"--name", "tab\tname"}},
		{flag: "name", args: []string{"--name", "nul\x01"}},
		{flag: "name", args: []string{"--name", ""}},
		{flag: "retries", args: []string{"--retries", "-1"}},
		{flag: "retry-interval", args: []string{"--retry-interval", "0s"}},
		{flag: "log-level", args: []string{"--log-level", "loud"}},
		{flag: "out", args: []string{"--out", filepath.Join(plain, "out.txt")}},
		{flag: "auth", args: []string{"--auth", "no-password"}},
		{flag: "auth", args: []string{"--auth", ":secret"}},
		{flag: "auth", args: []string{"--auth", ""}}, // a script's unset $PASS
		{flag: "fence", args: []string{"--fence", "--policy", "at-least-one"}},
		{flag: "election", args: []string{"--election", "raft"}, sub: "status"},
		{flag: "path", args: []string{"--path", "election"}, sub: "status"},
		{flag: "servers", args: []string{"--servers", "localhost"}, sub: "status"},
		{flag: "candidates", args: []string{"--candidates", "1"}, sub: "bench"},
		{flag: "candidates", args: []string{"--candidates", "10,many"}, sub: "bench"},
		{flag: "rounds", args: []string{"--rounds", "0"}, sub: "bench"},
		{flag: "election", args: []string{"--election", "sequential,raft"}, sub: "bench"},
		{flag: "watch", args: []string{"--watch", "everyone"}, sub: "bench"},
		{flag: "watch", args: []string{"--watch", "children", "--election", "single-file"}, sub: "bench"},
		{flag: "process-window", args: []string{"--process-window", "-1s"}, sub: "bench"},
		{flag: "session-timeout", args: []string{"--session-timeout", "0s"}, sub: "bench"},
		{flag: "servers", args: []string{"--servers", "localhost:0"}, sub: "bench"},
		{flag: "speakers", args: []string{"--speakers", "1"}, sub: "chaos"},
		{flag: "recipe", args: []string{"--recipe", "raft"}, sub: "chaos"},
		{flag: "faults", args: []string{"--faults", "data-loss"}, sub: "chaos"},                      // seqid only
		{flag: "recipe", args: []string{"--recipe", "lock"}, sub: "chaos"},                           // no zklock beside this speaker
		{flag: "speakers", args: []string{"--recipe", "semaphore", "--speakers", "2"}, sub: "chaos"}, // no more than its 2 leases
		{flag: "servers", args: []string{"--servers", "2"}, sub: "chaos"},
		{flag: "duration", args: []string{"--duration", "0s"}, sub: "chaos"},
		{flag: "policy", args: []string{"--policy", "sometimes"}, sub: "chaos"},
		{flag: "election", args: []string{"--election", "raft"}, sub: "chaos"},
		{flag: "fence", args: []string{"--fence", "--policy", "at-least-one"}, sub: "chaos"},
		{flag: "faults", args: []string{"--faults", "kill,meteor"}, sub: "chaos"},
		{flag: "seqid-mode", args: []string{"--recipe", "seqid", "--seqid-mode", "chain"}, sub: "chaos"},
		{flag: "faults", args: []string{"--faults", "quorum-loss", "--servers", "1"}, sub: "chaos"},
		{flag: "dir", args: []string{"--dir", dir}, sub: "chaos"}, // not empty
		// A program of the user's (--cmd) whose template cannot run.
		{flag: "cmd", args: []string{"--cmd", ""}, sub: "chaos"},
		{flag: "cmd", args: []string{"--cmd", "python3 s.py --name {name} --out {out}"}, sub: "chaos"}, // no {servers}
		{flag: "cmd", args: []string{"--cmd", "python3 s.py {servers} {name}"}, sub: "chaos"},          // no {out}
		{flag: "cmd", args: []string{"--cmd", "python3 s.py {servers} {name} {out} {leader}"}, sub: "chaos"},
		{flag: "cmd", args: []string{"--cmd", "python3 's.py {servers} {name} {out}"}, sub: "chaos"},
		{flag: "cmd", args: []string{"--cmd", "no-such-program {servers} {name} {out}"}, sub: "chaos"},
		{flag: "cmd", args: []string{"--cmd", "sh {servers} {name} {out}", "--recipe", "lock"}, sub: "chaos"},
		{flag: "faults", args: []string{"--cmd", "sh {servers} {name} {out}", "--faults", "delete-leader"}, sub: "chaos"},
		{flag: "pace", args: []string{"--pace", "5s"}, sub: "chaos"}, // no --cmd to declare it
		{flag: "pace", args: []string{"--cmd", "sh {servers} {name} {out}", "--pace", "0s"}, sub: "chaos"},
		{flag: "pace", args: []string{"--cmd", "sh {servers} {name} {out}", "--pace", "slow"}, sub: "chaos"},
		// A folder is no out file, and checking it must not create it.
		{flag: "out", args: []string{"--out", filepath.Join(dir, "fo") + "/"}},
		{flag: "out", args: []string{"--out", dir + "/new/.."}},
		// Go's own flag errors, named with two dashes like every other.
		{flag: "fsync", args: []string{"--fsync=maybe"}},
		{flag: "fence", args: []string{"--fence=maybe"}},
		{flag: "bogus", args: []string{"--bogus"}},
		{flag: "bogus", args: []string{"-bogus"}},
		{flag: "bogus", args: []string{"--bogus"}, sub: "status"},
		{flag: "json", args: []string{"--json=maybe"}, sub: "bench"},
		{flag: "rounds", args: []string{"--rounds"}, sub: "bench"},
		{flag: "width", args: []string{"--width", "abc"}, sub: "timeline"},
		{flag: "version", args: []string{"--version=maybe"}},
		// A flag whose value is missing takes the next flag as its value.
		{flag: "interval", args: []string{"--interval", "--out", "x"}},
		{flag: "name", args: []string{"--name", "--interval", "1s"}},
		{flag: "svg", args: []string{"--svg", "--width", "20"}, sub: "timeline"},
		{flag: "watch", args: []string{"--watch", "--candidates", "2"}, sub: "bench"},
	} {
		args := append([]string{"--servers", cluster.ConnString(), "--out", out}, tc.args...)
		switch tc.sub {
		case "":
		case "timeline": // no ZooKeeper here
			args = append([]string{tc.sub}, tc.args...)
		case "chaos": // starts servers of its own, in a folder of its own
			args = append([]string{tc.sub, "--dir", filepath.Join(dir, "chaos")}, tc.args...)
		default:
			args = append([]string{tc.sub, "--servers", cluster.ConnString()}, tc.args...)
		}
		p := zktest.Run(t, lone, args...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, err := p.Wait(ctx)
		cancel()
		stderr := p.Stderr()
		name := fmt.Sprintf("%s %q", tc.sub, tc.args)
		if err != nil || code != 2 {
			t.Errorf("%s: exit %d (%v), want 2; stderr %q", name, code, err, stderr)
		}
		if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(stderr, "--"+tc.flag) {
			t.Errorf("%s: stderr %q, want one line naming --%s", name, stderr, tc.flag)
		}
		if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
			t.Errorf("%s: stack trace on stderr", name)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "plain" {
				t.Errorf("%s: created %s", name, e.Name())
				_ = os.RemoveAll(filepath.Join(dir, e.Name())) // so that the next cases start clean
			}
		}
	}
	rz := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	children, err := rz.Children(ctx, "/")
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 || children[0] != "zookeeper" {
		t.Fatalf("znodes after bad input: %v, want only /zookeeper", children)
	}
}

func TestUnreachableZooKeeperIsNotBadInput(t *testing.T) {
	t.Parallel()
	zktest.Shared(t) // not used; it only proves ZooKeeper is installed, as every e2e test does
	out := filepath.Join(t.TempDir(), "out.txt")
	p := zktest.RunSpeaker(t, "--servers", "127.0.0.1:1", "--out", out)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitForStderr(ctx, "waiting for ZooKeeper at 127.0.0.1:1"); err != nil {
		t.Fatalf("no waiting message: %v\n%s", err, p.Stderr())
	}
	p.Signal(os.Interrupt)
	start := time.Now()
	waitCtx, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	code, err := p.Wait(waitCtx)
	if err != nil || code != 0 {
		t.Fatalf("SIGINT while waiting: exit %d, %v; want 0", code, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("exit took %v after SIGINT, want under 1s", d)
	}
}

// loneCopy copies the binary at path into a folder of its own, and returns
// the copy's path.
func loneCopy(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(lone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return lone
}
