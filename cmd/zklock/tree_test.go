package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// family is a CMD that writes "start EPOCH NS", then leaves two writers
// behind, as backup.sh leaves `rsync … &`: one in the background of its
// own shell ("bg" lines), and one that starts a session of its own with
// setsid ("ss" lines), out of every process group zklock knows. Both ignore
// SIGTERM and write every 20 ms, for n lines. CMD itself then writes
// "tick" lines for ticks rounds (0: it exits at once).
func family(file string, n, ticks int) []string {
	loop := func(what string) string {
		return fmt.Sprintf(`trap "" TERM; i=0; while [ $i -lt %d ]; do echo "%s $ZKLOCK_EPOCH $(date +%%s%%N)" >> %s; sleep 0.02; i=$((i+1)); done`, n, what, file)
	}
	return []string{"--", "/bin/sh", "-c", fmt.Sprintf(
		`echo "start $ZKLOCK_EPOCH $(date +%%s%%N)" >> %[1]s; ( %[2]s ) & setsid /bin/sh -c '%[3]s' & i=0; while [ $i -lt %[4]d ]; do echo "tick $ZKLOCK_EPOCH $(date +%%s%%N)" >> %[1]s; sleep 0.02; i=$((i+1)); done`,
		file, loop("bg"), loop("ss"), ticks)}
}

// lastOfFirstHolder checks the rule zklock exists for: no line of the
// first holder's tree (CMD and all it started) lands after the second
// holder's first line, and none lands at all once the first zklock has
// exited. It logs both moments after since.
func lastOfFirstHolder(t *testing.T, file string, since time.Time) {
	t.Helper()
	time.Sleep(300 * time.Millisecond) // a tree left running would write meanwhile
	recs := readRecords(t, file)
	if len(recs) == 0 {
		t.Fatal("no lines at all")
	}
	first := recs[0].epoch
	var firstLast, secondStart time.Time
	kinds := map[string]bool{}
	for _, r := range recs {
		switch {
		case r.epoch == first:
			kinds[r.what] = true
			if r.at.After(firstLast) {
				firstLast = r.at
			}
		case r.what == "start" && secondStart.IsZero():
			secondStart = r.at
		}
	}
	if !kinds["bg"] || !kinds["ss"] {
		t.Fatalf("the first holder's tree wrote %v; want bg and ss lines too: the test proves nothing", kinds)
	}
	if secondStart.IsZero() {
		t.Fatalf("the second holder never started")
	}
	if !firstLast.Before(secondStart) {
		t.Fatalf("the first holder's tree wrote at %s, %v after the second holder started at %s: two holders at once",
			firstLast.Format(time.TimeOnly+".000"), firstLast.Sub(secondStart).Round(time.Millisecond), secondStart.Format(time.TimeOnly+".000"))
	}
	t.Logf("the first tree's last line +%v, the second's start +%v",
		firstLast.Sub(since).Round(time.Millisecond), secondStart.Sub(since).Round(time.Millisecond))
}

// queueSecond starts a second contender behind the first, which holds,
// and waits until it is queued.
func queueSecond(t *testing.T, servers, file string) *zktest.Process {
	t.Helper()
	second := run(t, servers, holds(file, 1)...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := second.WaitForStderr(ctx, "waiting for the lock"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // its znode is made
	return second
}

// signalTheHoldersJob starts a holder whose CMD leaves a family behind,
// as a job of its own, queues a second contender, sends sig to the first
// holder's process group, and waits until the second holder is done. It
// returns the first holder, the file both write, and when sig was sent.
func signalTheHoldersJob(t *testing.T, sig syscall.Signal) (*zktest.Process, string, time.Time) {
	t.Helper()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	first := zktest.RunJob(t, zklockBin(t), append([]string{"--servers", cluster.ConnString(), "--session-timeout", session.String(), "--path", zktest.Path(t)}, family(file, 1500, 1500)...)...)
	waitForLine(t, file, "ss")
	second := queueSecond(t, cluster.ConnString(), file)
	sent := time.Now()
	first.SignalGroup(sig)
	if code := wait(t, second, 30*time.Second); code != 0 {
		t.Fatalf("the second holder: exit %d; stderr:\n%s", code, second.Stderr())
	}
	return first, file, sent
}

// Ctrl-Z in zklock's terminal stops zklock's process group. CMD and all it
// started are frozen with it, and killed by the watchdog before the
// session can expire: nothing of the first holder's tree runs beside the
// second holder's CMD. After fg, zklock says what happened.
func TestCtrlZFreezesCMDsWholeTree(t *testing.T) {
	t.Parallel()
	first, file, stopped := signalTheHoldersJob(t, syscall.SIGTSTP)
	lastOfFirstHolder(t, file, stopped)
	first.SignalGroup(syscall.SIGCONT) // fg
	if code := wait(t, first, 10*time.Second); code == 0 {
		t.Errorf("the first zklock exited 0, but its CMD was killed")
	}
	lastOfFirstHolder(t, file, stopped)
	errOut := first.Stderr()
	for _, want := range []string{"Ctrl-Z", "zklock: watchdog: killed CMD and every process it started at", "zklock was stopped (Ctrl-Z) past CMD's deadline"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the first zklock's log does not say %q:\n%s", want, errOut)
		}
	}
}

// Killing zklock's whole process group, as `timeout -s KILL` or
// `kill -- -PGID` do, kills zklock but not the watchdog, which is outside
// that group: it stops CMD's whole tree, SIGKILL for those that ignore
// SIGTERM, before the session can expire, and says so.
func TestKillingZklocksGroupLeavesNoCMDRunning(t *testing.T) {
	t.Parallel()
	first, file, killed := signalTheHoldersJob(t, syscall.SIGKILL)
	lastOfFirstHolder(t, file, killed)
	// zklock is dead and says nothing; the watchdog, which saw it go and
	// ended the tree, says so.
	errOut := first.Stderr()
	gone := strings.Index(errOut, "zklock: watchdog: zklock is gone")
	killedLeft := strings.Index(errOut, "zklock: watchdog: killed (SIGKILL) what was left of CMD's tree")
	if gone < 0 || killedLeft < gone {
		t.Errorf("the watchdog does not say, in order, that zklock was gone and that it killed what ignored SIGTERM:\n%s", errOut)
	}
}

// CMD exits at once and leaves two writers running, one of them in a
// session of its own. The lock is held until the last of them ends, as
// flock(1) holds its lock while any process it started keeps the file
// open: the next holder starts after their last line, and zklock says why
// it still holds the lock.
func TestTheLockIsHeldUntilCMDsLastProcessEnds(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	first := run(t, cluster.ConnString(), family(file, 40, 0)...)
	waitForLine(t, file, "ss")
	second := queueSecond(t, cluster.ConnString(), file)
	since := time.Now()
	if code := wait(t, second, 30*time.Second); code != 0 {
		t.Fatalf("the second holder: exit %d; stderr:\n%s", code, second.Stderr())
	}
	if code := wait(t, first, 10*time.Second); code != 0 {
		t.Errorf("the first zklock: exit %d, want CMD's 0\n%s", code, first.Stderr())
	}
	lastOfFirstHolder(t, file, since)
	if errOut := first.Stderr(); !strings.Contains(errOut, "CMD exited (status 0), but processes it started still run") {
		t.Errorf("the first zklock's log does not say that it holds the lock for CMD's leftovers:\n%s", errOut)
	}
}

// Ctrl-Z, then fg before CMD's deadline: CMD's tree wrote nothing while
// zklock was stopped, then goes on under the lock to its end.
func TestFgInTimeThawsCMDsTree(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	p := zktest.RunJob(t, zklockBin(t), append([]string{"--servers", cluster.ConnString(), "--session-timeout", session.String(), "--path", zktest.Path(t)}, family(file, 50, 50)...)...)
	waitForLine(t, file, "ss")
	stopped := time.Now()
	p.SignalGroup(syscall.SIGTSTP)
	time.Sleep(session / 5) // well before the deadline, at least S/2 away
	resumed := time.Now()
	p.SignalGroup(syscall.SIGCONT)
	if code := wait(t, p, 20*time.Second); code != 0 {
		t.Fatalf("exit %d, want 0: CMD should have run to its end\n%s", code, p.Stderr())
	}
	counts := map[string]int{}
	for _, r := range readRecords(t, file) {
		counts[r.what]++
		// A line may be on its way as the signal comes: give it 100 ms.
		if r.at.After(stopped.Add(100*time.Millisecond)) && r.at.Before(resumed) {
			t.Errorf("a %s line at +%v, while zklock and CMD's tree were stopped", r.what, r.at.Sub(stopped).Round(time.Millisecond))
		}
	}
	if counts["tick"] != 50 || counts["bg"] != 50 || counts["ss"] != 50 {
		t.Errorf("lines written: %v, want 50 of each kind: the tree should have run to its end", counts)
	}
	if !strings.Contains(p.Stderr(), "fg: in time, and the lock is still ours: CMD and all it started thawed") {
		t.Errorf("the log does not say that fg thawed CMD's tree:\n%s", p.Stderr())
	}
}

// SIGTERM to zklock asks CMD's tree to stop once, as systemd does: a
// CMD whose trap starts a cleanup process must see it run to its end,
// not be asked to stop in turn.
func TestATermTrapsCleanupRuns(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "cleaned")
	p := run(t, zktest.Shared(t).ConnString(), "--", "/bin/sh", "-c", fmt.Sprintf(
		`trap 'sh -c "sleep 0.2; echo cleaned > %s"; exit 0' TERM; echo started >&2; while :; do sleep 0.05; done`, file))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.WaitForStderr(ctx, "started"); err != nil {
		t.Fatal(err)
	}
	p.Term()
	if code := wait(t, p, 10*time.Second); code != 0 {
		t.Errorf("exit %d, want 0: CMD's trap exits 0\n%s", code, p.Stderr())
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "cleaned\n" {
		t.Fatalf("the trap's cleanup did not run to its end (%q, %v)", b, err)
	}
}
