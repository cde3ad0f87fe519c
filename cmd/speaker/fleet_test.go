package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// member is one speaker process of a fleet, and the proxy its traffic to
// ZooKeeper goes through.
type member struct {
	name  string
	proc  *zktest.Process
	proxy *zktest.Proxy
}

// fleet is a few speakers on one out file, each behind its own proxy.
type fleet struct {
	t       *testing.T
	out     string
	path    string // the election's znode, the test's own
	members map[string]*member
	session time.Duration
	period  time.Duration
}

// fleetConfig says how to run a fleet.
type fleetConfig struct {
	election string
	policy   string
	session  time.Duration
	interval time.Duration
	names    []string
	direct   []string // servers to use instead of one proxy per member
	extra    []string
	path     string // the election's znode: zktest.Path of the test unless set
}

func startFleet(t *testing.T, cluster *zktest.Cluster, cfg fleetConfig) *fleet {
	t.Helper()
	if cfg.path == "" {
		cfg.path = zktest.Path(t)
	}
	f := &fleet{t: t, out: filepath.Join(t.TempDir(), "out.txt"), path: cfg.path, members: map[string]*member{}, session: cfg.session, period: cfg.interval}
	for _, name := range cfg.names {
		f.add(cluster, cfg, name, nil)
	}
	return f
}

// add starts one more member; arm, if given, runs on its proxy first.
func (f *fleet) add(cluster *zktest.Cluster, cfg fleetConfig, name string, arm func(*zktest.Proxy)) *member {
	f.t.Helper()
	m := &member{name: name}
	servers := strings.Join(cfg.direct, ",")
	if servers == "" {
		m.proxy = zktest.NewProxy(f.t, cluster.Server(0))
		if arm != nil {
			arm(m.proxy)
		}
		servers = m.proxy.Addr()
	}
	args := []string{"--servers", servers, "--election", cfg.election, "--path", f.path, "--policy", cfg.policy, "--name", name,
		"--out", f.out, "--interval", cfg.interval.String(), "--session-timeout", cfg.session.String(), "--log-level", "debug"}
	m.proc = zktest.RunSpeaker(f.t, append(args, cfg.extra...)...)
	joined := "joined the election"
	if cfg.election == "single-file" {
		joined = "the leader znode"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := m.proc.WaitForStderr(ctx, joined); err != nil {
		f.t.Fatalf("%s did not join: %v\n%s", name, err, m.proc.Stderr())
	}
	f.members[name] = m
	return m
}

// leader waits until someone has spoken lines since the last term began,
// and returns that member.
func (f *fleet) leader(lines int) *member {
	f.t.Helper()
	terms := electiontest.WaitTerms(f.t, f.out, 15*time.Second, "someone speaks", func(ts []electiontest.Term) bool {
		return len(ts) > 0 && ts[len(ts)-1].Lines >= lines
	})
	return f.members[terms[len(terms)-1].Name]
}

// terms reads the out file, checking every invariant: whole lines, counters
// up by 1, no overlap, and no writer back after a successor.
func (f *fleet) terms() []electiontest.Term {
	f.t.Helper()
	return electiontest.ReadTerms(f.t, f.out, false)
}

// linesOf returns the times of name's lines.
func (f *fleet) linesOf(name string) []time.Time {
	f.t.Helper()
	data, err := os.ReadFile(f.out)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []time.Time
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 3 && fields[1] == name {
			ts, err := time.Parse(time.RFC3339Nano, fields[0])
			if err != nil {
				f.t.Fatal(err)
			}
			out = append(out, ts)
		}
	}
	return out
}

// maxGap returns the longest silence between name's lines in [from, to].
func maxGap(times []time.Time, from, to time.Time) time.Duration {
	prev, gap := from, time.Duration(0)
	for _, ts := range times {
		if ts.Before(from) || ts.After(to) {
			continue
		}
		gap = max(gap, ts.Sub(prev))
		prev = ts
	}
	return max(gap, to.Sub(prev))
}

// between counts the times in (from, to).
func between(times []time.Time, from, to time.Time) int {
	return len(slices.DeleteFunc(slices.Clone(times), func(ts time.Time) bool { return !ts.After(from) || !ts.Before(to) }))
}

// noOrphans waits until the election at path holds exactly one znode per
// live member, each owned by a different session: nothing left behind.
func noOrphans(t *testing.T, cluster *zktest.Cluster, election, path string, alive int) {
	t.Helper()
	rz := electiontest.Connect(t, cluster.Servers(), 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var children []string
	electiontest.Eventually(t, 15*time.Second, "one znode per live speaker", func() bool {
		if election == "single-file" {
			ok, _, err := rz.Exists(ctx, path)
			return err == nil && ok == (alive > 0)
		}
		var err error
		children, err = rz.Children(ctx, path)
		return err == nil && len(children) == alive
	})
	owners := map[int64]bool{}
	for _, c := range children {
		ok, st, err := rz.Exists(ctx, path+"/"+c)
		if err != nil || !ok || st.EphemeralOwner == 0 || owners[st.EphemeralOwner] {
			t.Fatalf("znode %s: exists %v, owner %v, err %v: an orphan or a second znode of one session", c, ok, st, err)
		}
		owners[st.EphemeralOwner] = true
	}
}

// freeze stops m (SIGSTOP) at a moment when it does not hold the out file's
// lock: the fleet takes the lock itself, so that m cannot be inside its
// fenced write, stops m, waits until the kernel says it is stopped, and
// lets go. A freeze that lands inside the lock (a few microseconds a line,
// more on a busy machine) leaves the file locked for as long as it lasts,
// and the successor rightly writes nothing then: its line could land in
// the middle of the frozen one's. That case is TestFenceLockWaitIsBounded's
// (package speaker); the fault tests freeze a leader between its lines.
func (f *fleet) freeze(m *member) {
	f.t.Helper()
	file, err := os.OpenFile(f.out, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		f.t.Fatal(err)
	}
	defer file.Close()
	if err := syscall.Flock(int(file.Fd()), syscall.LOCK_EX); err != nil {
		f.t.Fatalf("lock %s: %v", f.out, err)
	}
	defer syscall.Flock(int(file.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing unlocks too
	m.proc.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for !stopped(m.proc.Pid()) {
		if time.Now().After(deadline) {
			f.t.Fatalf("%s did not stop within 5s of SIGSTOP", m.name)
		}
		time.Sleep(time.Millisecond)
	}
}

// stopped reports whether process pid is stopped by a signal (state T in
// /proc/<pid>/stat).
func stopped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis: "pid (comm) T ...".
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'T'
}
