package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

const session = 2 * time.Second

// run starts zklock against servers with args and returns the process. Its
// lock is the test's own path, unless args give another --path.
func run(t *testing.T, servers string, args ...string) *zktest.Process {
	t.Helper()
	return zktest.Run(t, zklockBin(t), append([]string{"--servers", servers, "--session-timeout", session.String(), "--path", zktest.Path(t)}, args...)...)
}

func wait(t *testing.T, p *zktest.Process, limit time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("zklock did not exit: %v\nstderr:\n%s", err, p.Stderr())
	}
	return code
}

// holds is a CMD that writes "start EPOCH", then "tick EPOCH UNIXNANO" every
// 20ms for a while, then "end EPOCH", each line appended to file.
func holds(file string, ticks int) []string {
	return []string{"--", "/bin/sh", "-c", fmt.Sprintf(
		`echo "start $ZKLOCK_EPOCH $(date +%%s%%N)" >> %[1]s; i=0; while [ $i -lt %[2]d ]; do echo "tick $ZKLOCK_EPOCH $(date +%%s%%N)" >> %[1]s; sleep 0.02; i=$((i+1)); done; echo "end $ZKLOCK_EPOCH $(date +%%s%%N)" >> %[1]s`,
		file, ticks)}
}

// record is one line a CMD wrote: what, under which epoch, when.
type record struct {
	what  string
	epoch int64
	at    time.Time
}

func readRecords(t *testing.T, file string) []record {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		var ns int64
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %d", &r.what, &r.epoch, &ns); err != nil {
			t.Fatalf("a torn or odd line %q: %v", sc.Text(), err)
		}
		r.at = time.Unix(0, ns)
		out = append(out, r)
	}
	return out
}

// Two hundred acquisitions by five competing processes: every holder's CMD
// runs alone, start to end, and the epochs only grow.
func TestHoldersNeverOverlap(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	const workers, each = 5, 40
	var wg sync.WaitGroup
	errs := make(chan string, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				p := run(t, cluster.ConnString(), append([]string{"--name", fmt.Sprintf("w%d-%d", w, i)}, holds(file, 1)...)...)
				if code := wait(t, p, time.Minute); code != 0 {
					errs <- fmt.Sprintf("worker %d, round %d: exit %d: %s", w, i, code, p.Stderr())
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	recs := readRecords(t, file)
	if len(recs) != 3*workers*each {
		t.Fatalf("%d lines, want %d (start, tick, end per holder)", len(recs), 3*workers*each)
	}
	last := int64(0)
	for i := 0; i < len(recs); i += 3 {
		s, k, e := recs[i], recs[i+1], recs[i+2]
		if s.what != "start" || k.what != "tick" || e.what != "end" || s.epoch != k.epoch || s.epoch != e.epoch {
			t.Fatalf("lines %d-%d interleave: %+v %+v %+v: two holders at once", i+1, i+3, s, k, e)
		}
		if s.epoch <= last {
			t.Fatalf("line %d: epoch %d after %d: the epoch must grow with every holder", i+1, s.epoch, last)
		}
		last = s.epoch
	}
}

// CMD's status is zklock's, and CMD sees the lock's epoch.
func TestExitStatusAndEpoch(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	p := run(t, cluster.ConnString(), "--", "/bin/sh", "-c", `echo "epoch=$ZKLOCK_EPOCH path=$ZKLOCK_PATH"; exit 7`)
	if code := wait(t, p, 30*time.Second); code != 7 {
		t.Fatalf("exit %d, want CMD's 7; stderr:\n%s", code, p.Stderr())
	}
	out := strings.TrimSpace(p.Stdout())
	path := " path=" + zktest.Path(t)
	epoch, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(out, "epoch="), path), 10, 64)
	if err != nil || epoch <= 0 || !strings.HasSuffix(out, path) {
		t.Fatalf("CMD printed %q, want a positive epoch and%s", out, path)
	}
}

// A contender that the lock's ACL refuses exits 1 at once with one line
// saying to give --auth, and its CMD never runs.
func TestWrongAuthExitsWithOneLine(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	marker := filepath.Join(t.TempDir(), "ran")
	owner := run(t, cluster.ConnString(), "--auth", "ops:s3cret", "--", "/bin/sh", "-c", "echo held; sleep 30")
	defer owner.Term()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := owner.WaitForStderr(ctx, "holding the lock"); err != nil {
		t.Fatal(err)
	}
	p := run(t, cluster.ConnString(), "--auth", "ops:wrong", "--", "/bin/sh", "-c", "touch "+marker)
	code := wait(t, p, 10*time.Second)
	lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
	if strings.Contains(p.Stderr(), "will try again") {
		t.Fatalf("it tried again before giving up; want it to give up on the first refusal:\n%s", p.Stderr())
	}
	if strings.Contains(p.Stderr(), "level=ERROR") {
		t.Errorf("an ERROR line before the one line says the refusal twice:\n%s", p.Stderr())
	}
	if last := lines[len(lines)-1]; code != 1 || !strings.HasPrefix(last, "zklock: not allowed") || !strings.Contains(last, "--auth") {
		t.Fatalf("exit %d, last line %q; want exit 1 and one line saying to give --auth", code, last)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the refused contender ran its CMD")
	}
}

// A holder killed with SIGKILL cannot delete its znode: the lock passes on
// once its session expires, within S + tick + a margin, and its CMD was
// stopped by the watchdog the moment zklock died.
func TestKilledHolderHandsOver(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	first := run(t, cluster.ConnString(), holds(file, 10000)...)
	waitForLine(t, file, "tick")
	second := run(t, cluster.ConnString(), holds(file, 1)...)
	time.Sleep(300 * time.Millisecond) // queued behind the first
	killed := time.Now()
	first.Kill()
	if code := wait(t, second, 30*time.Second); code != 0 {
		t.Fatalf("the second holder: exit %d; stderr:\n%s", code, second.Stderr())
	}
	recs := readRecords(t, file)
	var firstLast, secondStart time.Time
	for _, r := range recs {
		switch {
		case r.what == "start" && !firstLast.IsZero() && r.at.After(killed):
			secondStart = r.at
		case r.what == "tick" && secondStart.IsZero():
			firstLast = r.at
		}
	}
	if secondStart.IsZero() {
		t.Fatalf("the second holder never started: %+v", recs)
	}
	if !firstLast.Before(secondStart) {
		t.Fatalf("the killed holder's CMD wrote at %v, after the next one started at %v", firstLast, secondStart)
	}
	if bound := session + zktest.TickTime + time.Second; secondStart.Sub(killed) > bound {
		t.Fatalf("handover took %v, more than the session's %v plus a tick and a second", secondStart.Sub(killed), session)
	}
	t.Logf("handover after SIGKILL: %v", secondStart.Sub(killed).Round(time.Millisecond))
}

// A holder frozen with SIGSTOP cannot stop its CMD, so its watchdog does,
// before the session can expire: the frozen holder's CMD never writes after
// the next holder's CMD has started.
func TestFrozenHoldersCMDStopsBeforeTheNextStarts(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	first := run(t, cluster.ConnString(), holds(file, 10000)...)
	waitForLine(t, file, "tick")
	second := run(t, cluster.ConnString(), holds(file, 1)...)
	time.Sleep(300 * time.Millisecond)
	frozen := time.Now()
	first.Stop()
	if code := wait(t, second, 30*time.Second); code != 0 {
		t.Fatalf("the second holder: exit %d; stderr:\n%s", code, second.Stderr())
	}
	first.Cont()
	if code := wait(t, first, 10*time.Second); code == 0 {
		t.Errorf("the thawed holder exited 0, but its CMD was killed and its lock lost")
	}
	// Its CMD did not just exit: the watchdog killed it while zklock was
	// frozen, long before zklock, thawed, heard that the lock was gone.
	// Whichever news zklock reads first, the log says that, in that order,
	// and never that it stops CMD now.
	errOut := first.Stderr()
	killed := strings.Index(errOut, "zklock went silent at")
	released := strings.Index(errOut, `because="the watchdog killed CMD and all it started at its deadline: zklock stood still`)
	if killed < 0 || released < killed {
		t.Errorf("the thawed holder's log does not say, in order, that the watchdog killed CMD and why it ended:\n%s", errOut)
	}
	if strings.Contains(errOut, "stopping CMD and all it started before anyone else can hold it") {
		t.Errorf("the thawed holder says it stops CMD, which the watchdog had killed already:\n%s", errOut)
	}
	recs := readRecords(t, file)
	var firstEpoch int64
	var firstLast, secondStart time.Time
	for _, r := range recs {
		if firstEpoch == 0 {
			firstEpoch = r.epoch
		}
		if r.epoch == firstEpoch {
			firstLast = r.at
		} else if r.what == "start" && secondStart.IsZero() {
			secondStart = r.at
		}
	}
	if secondStart.IsZero() || !firstLast.Before(secondStart) {
		t.Fatalf("the frozen holder's CMD wrote at %v, the next one started at %v: two at once", firstLast, secondStart)
	}
	t.Logf("frozen at +0; its CMD's last line +%v; the next CMD's start +%v",
		firstLast.Sub(frozen).Round(time.Millisecond), secondStart.Sub(frozen).Round(time.Millisecond))
}

// The reply to our create is lost: the server made our znode, the client
// never heard. zklock must find it by its protected name, not queue a
// second one behind it, which would then wait for ever for the first.
func TestLostCreateReplyLeavesOneContender(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	proxy.ResetAfterCreate(zktest.Path(t) + "/")
	file := filepath.Join(t.TempDir(), "held.txt")
	p := run(t, proxy.Addr(), holds(file, 25)...)
	select {
	case <-proxy.Fired():
	case <-time.After(10 * time.Second):
		t.Fatal("the trap never fired: zklock made no create")
	}
	waitForLine(t, file, "tick")
	rz := zktest.Connect(t, cluster.Servers(), 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	children, err := rz.Children(ctx, zktest.Path(t))
	if err != nil || len(children) != 1 {
		t.Fatalf("contenders while holding: %v, %v; want exactly one", children, err)
	}
	if code := wait(t, p, 30*time.Second); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.Stderr())
	}
	if children, err := rz.Children(ctx, zktest.Path(t)); err != nil || len(children) != 0 {
		t.Fatalf("contenders after the release: %v, %v; want none", children, err)
	}
}

// Bad input: one line naming the problem, exit 2, nothing created.
func TestBadInput(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"no command", nil},
		{"--path", []string{"--path", "lock", "--", "true"}},
		{"--path", []string{"--path", "/lock\u0085", "--", "true"}},
		{"--path", []string{"--path", "/lock\ue000", "--", "true"}},
		{"--grace", []string{"--grace", "-1s", "--", "true"}},
		{"--session-timeout", []string{"--session-timeout", "0s", "--", "true"}},
		{"--policy", []string{"--policy", "sometimes", "--", "true"}},
		{"--leases", []string{"--leases", "0", "--", "true"}},
		{"--leases", []string{"--leases", "two", "--", "true"}},
		{"--leases: goes with no --shared", []string{"--leases", "2", "--shared", "--", "true"}},
		{"--revocable", []string{"--revocable=maybe", "--", "true"}},
		{"revoke goes first: zklock revoke --path P", []string{"revoke"}},
		{"CMD", []string{"--", "/no/such/program"}},
		{"--bogus", []string{"--bogus", "--", "true"}},
		// --name's value forgotten: the -- would be the name, and CMD run.
		{`--name: "--" looks like a flag`, []string{"--name", "--", "true"}},
		{"--name", []string{"--name", "two\nlines", "--", "true"}},
	} {
		p := run(t, cluster.ConnString(), tc.args...)
		code := wait(t, p, 10*time.Second)
		stderr := strings.TrimRight(p.Stderr(), "\n")
		if code != 2 || strings.Contains(stderr, "\n") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line naming %s", tc.args, code, stderr, tc.want)
		}
	}
	rz := zktest.Connect(t, cluster.Servers(), 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if ok, _, err := rz.Exists(ctx, zktest.Path(t)); err != nil || ok {
		t.Fatalf("bad input created %s (%v, %v)", zktest.Path(t), ok, err)
	}
}

// waitForLine waits until file holds a line starting with prefix.
func waitForLine(t *testing.T, file, prefix string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.Contains(string(b), prefix+" ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %q line in %s within 20s", prefix, file)
}
