package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

const session = 2 * time.Second

// member starts `zkbarrier run --count n PATH -- CMD` on the test's path:
// CMD appends "start NAME UNIXNANO" to file, sleeps for work, and appends
// "end NAME UNIXNANO".
func member(t *testing.T, n int, name, file string, work time.Duration) *zktest.Process {
	t.Helper()
	script := fmt.Sprintf(`echo "start %[1]s $(date +%%s%%N)" >> %[2]s; sleep %[3]g; echo "end %[1]s $(date +%%s%%N)" >> %[2]s`, name, file, work.Seconds())
	return zktest.Run(t, bin, "run", "--servers", servers[0], "--session-timeout", session.String(), "--count", fmt.Sprint(n),
		"--name", name, zktest.Path(t), "--", "/bin/sh", "-c", script)
}

// says waits until p's log says s.
func says(t *testing.T, p *zktest.Process, s string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*session)
	defer cancel()
	if err := p.WaitForStderr(ctx, s); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, p.Stderr())
	}
}

// exits waits for p's exit status.
func exits(t *testing.T, p *zktest.Process, limit time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("zkbarrier did not exit: %v\nstderr:\n%s", err, p.Stderr())
	}
	return code
}

// events reads CMD's lines: name → "start"/"end" → when.
func events(t *testing.T, file string) map[string]map[string]time.Time {
	t.Helper()
	out := map[string]map[string]time.Time{}
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var what, name string
		var ns int64
		if _, err := fmt.Sscanf(sc.Text(), "%s %s %d", &what, &name, &ns); err != nil {
			t.Fatalf("odd line %q: %v", sc.Text(), err)
		}
		if out[name] == nil {
			out[name] = map[string]time.Time{}
		}
		out[name][what] = time.Unix(0, ns)
	}
	return out
}

// allLeft is when p logged that every member had left.
func allLeft(t *testing.T, p *zktest.Process) time.Time {
	t.Helper()
	m := regexp.MustCompile(`time=(\S+) level=INFO msg="every member of the round has left"`).FindStringSubmatch(p.Stderr())
	if m == nil {
		t.Fatalf("no 'every member of the round has left' in:\n%s", p.Stderr())
	}
	at, err := time.Parse(time.RFC3339Nano, m[1])
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// Three members: no CMD starts before the third is in, and none exits
// before the slowest CMD has ended. zkbarrier exits with CMD's status.
func TestRunStartsTogetherAndLeavesTogether(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	file := filepath.Join(t.TempDir(), "cmd.txt")
	a := member(t, 3, "ann", file, 100*time.Millisecond)
	b := member(t, 3, "bob", file, 100*time.Millisecond)
	says(t, a, "waiting for more members")
	says(t, b, "waiting for more members")
	time.Sleep(200 * time.Millisecond)
	if ev := events(t, file); len(ev) != 0 {
		t.Fatalf("CMD ran with 2 of 3 in: %v", ev)
	}
	third := time.Now()
	c := member(t, 3, "cid", file, time.Second)
	for _, p := range []*zktest.Process{a, b, c} {
		if code := exits(t, p, 15*session); code != 0 {
			t.Fatalf("exit %d\n%s", code, p.Stderr())
		}
	}
	ev := events(t, file)
	for _, p := range []*zktest.Process{a, b, c} {
		left := allLeft(t, p)
		for name, e := range ev {
			if e["start"].Before(third) {
				t.Errorf("%s started CMD before the third member came", name)
			}
			if e["end"].IsZero() || left.Before(e["end"]) {
				t.Errorf("a member saw all leave at %v, before %s's CMD ended (%v)", left, name, e["end"])
			}
		}
	}
	if len(ev) != 3 {
		t.Fatalf("CMD lines of %d members, want 3: %v", len(ev), ev)
	}
}

// zkbarrier exits with CMD's status, after the others have left too.
func TestRunExitsWithCMDsStatus(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	path := zktest.Path(t)
	run := func(status int) *zktest.Process {
		return zktest.Run(t, bin, "run", "-s", servers[0], "--session-timeout", session.String(), "--count", "2", path, "--", "/bin/sh", "-c", fmt.Sprintf("exit %d", status))
	}
	a, b := run(3), run(0)
	if code := exits(t, a, 10*session); code != 3 {
		t.Errorf("CMD exit 3: zkbarrier exit %d\n%s", code, a.Stderr())
	}
	if code := exits(t, b, 10*session); code != 0 {
		t.Errorf("CMD exit 0: zkbarrier exit %d\n%s", code, b.Stderr())
	}
}

// A member killed (SIGKILL) inside, while its CMD runs: its CMD dies with
// it, the others finish theirs and wait in leave while its session lives,
// and go once it has expired.
func TestAMemberKilledInsideIsNotWaitedForOnceItsSessionEnds(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	file := filepath.Join(t.TempDir(), "cmd.txt")
	a := member(t, 3, "ann", file, 100*time.Millisecond)
	b := member(t, 3, "bob", file, 100*time.Millisecond)
	// cid's shell execs its sleep, so that the parent-death signal, which
	// reaches CMD alone, ends its work with zkbarrier (the chapter says
	// that processes CMD starts are not covered yet).
	c := zktest.Run(t, bin, "run", "--servers", servers[0], "--session-timeout", session.String(), "--count", "3",
		"--name", "cid", zktest.Path(t), "--", "/bin/sh", "-c", fmt.Sprintf(`echo "start cid $(date +%%s%%N)" >> %s; exec sleep 30`, file))
	for _, p := range []*zktest.Process{a, b} {
		says(t, p, "CMD ended: leaving")
	}
	says(t, c, "all are in: starting CMD")
	time.Sleep(300 * time.Millisecond)
	for _, p := range []*zktest.Process{a, b} {
		if strings.Contains(p.Stderr(), "every member of the round has left") {
			t.Fatalf("a member left while cid's CMD ran:\n%s", p.Stderr())
		}
	}
	killed := time.Now()
	c.Kill()
	for _, p := range []*zktest.Process{a, b} {
		if code := exits(t, p, 10*session); code != 0 {
			t.Fatalf("exit %d\n%s", code, p.Stderr())
		}
		if left := allLeft(t, p); left.Before(killed) {
			t.Errorf("all left at %v, before cid was killed at %v", left, killed)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if e := events(t, file)["cid"]; !e["end"].IsZero() || e["start"].IsZero() {
		t.Errorf("cid's CMD: %v; want started and never ended (killed with zkbarrier)", e)
	}
}

// A member killed (SIGKILL) before the count is in counts until its
// session expires; after that, the others wait for one more.
func TestAMemberKilledBeforeEntryNoLongerCounts(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	file := filepath.Join(t.TempDir(), "cmd.txt")
	admin := zktest.Connect(t, servers, session)
	a := member(t, 3, "ann", file, 0)
	b := member(t, 3, "bob", file, 0)
	says(t, a, "waiting for more members")
	says(t, b, "waiting for more members")
	b.Kill()
	deadline := time.Now().Add(5 * session)
	for {
		kids, err := admin.Children(context.Background(), zktest.Path(t))
		if err != nil {
			t.Fatal(err)
		}
		if len(kids) == 1 {
			break // bob's session expired
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's member znode still there %v after his kill: %q", 5*session, kids)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := member(t, 3, "cid", file, 0)
	says(t, c, "in=2 count=3") // the waiting line of cid, with ann alone beside it
	if ev := events(t, file); len(ev) != 0 {
		t.Fatalf("CMD ran with 2 alive of 3: %v", ev)
	}
	d := member(t, 3, "dan", file, 0)
	for _, p := range []*zktest.Process{a, c, d} {
		if code := exits(t, p, 10*session); code != 0 {
			t.Fatalf("exit %d\n%s", code, p.Stderr())
		}
	}
	if ev := events(t, file); len(ev) != 3 || ev["bob"] != nil {
		t.Errorf("CMD ran for %v, want ann, cid, dan", ev)
	}
}

// A member asked to stop while it waits for the others to leave, cut off
// from ZooKeeper (a black hole), exits at once: it does not wait for its
// session's close, and its znode goes when the session expires.
func TestAMemberCutOffExitsPromptlyOnSIGTERM(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	file := filepath.Join(t.TempDir(), "cmd.txt")
	proxy := zktest.NewProxy(t, servers[0])
	script := fmt.Sprintf(`echo "start ann $(date +%%s%%N)" >> %[1]s; echo "end ann $(date +%%s%%N)" >> %[1]s`, file)
	a := zktest.Run(t, bin, "run", "--servers", proxy.Addr(), "--session-timeout", (4 * session).String(), "--count", "2",
		"--name", "ann", zktest.Path(t), "--", "/bin/sh", "-c", script)
	b := member(t, 2, "bob", file, 4*time.Second)
	says(t, a, "CMD ended: leaving") // then it waits for bob, lowest or not
	says(t, b, "all are in: starting CMD")
	proxy.Cut()
	time.Sleep(300 * time.Millisecond)
	asked := time.Now()
	a.Term()
	code := exits(t, a, 10*session)
	if took := time.Since(asked); code != 130 || took > session+closeTimeout {
		t.Errorf("exit %d %v after SIGTERM, want 130 within a session and the close's bound (%v)\n%s", code, took.Round(time.Millisecond), closeTimeout, a.Stderr())
	}
	b.Kill() // it would wait for ann's znode until her session expires
}

// A member asked to stop (SIGTERM) while CMD runs passes the signal on to
// CMD and exits as soon as CMD has, with its status, without waiting for
// the others to finish theirs; they do not wait for it either.
func TestAMemberAskedToStopInsideExitsWithoutWaiting(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	file := filepath.Join(t.TempDir(), "cmd.txt")
	// ann's CMD ends at SIGTERM (sh, waiting for a child, would not).
	a := zktest.Run(t, bin, "run", "--servers", servers[0], "--session-timeout", session.String(), "--count", "2",
		"--name", "ann", zktest.Path(t), "--", "/bin/sh", "-c", fmt.Sprintf(`echo "start ann $(date +%%s%%N)" >> %s; exec sleep 20`, file))
	b := member(t, 2, "bob", file, 10*session)
	says(t, a, "all are in: starting CMD")
	says(t, b, "all are in: starting CMD")
	a.Term()
	if code := exits(t, a, 5*session); code != 143 {
		t.Errorf("ann: exit %d after SIGTERM, want CMD's 143\n%s", code, a.Stderr())
	}
	if strings.Contains(b.Stderr(), "CMD ended") {
		t.Errorf("ann exited only after bob's CMD ended:\n%s", b.Stderr())
	}
	if code := exits(t, b, 15*session); code != 0 {
		t.Errorf("bob: exit %d\n%s", code, b.Stderr())
	}
}
