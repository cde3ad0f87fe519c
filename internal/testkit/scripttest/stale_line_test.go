package scripttest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/speaker"
)

// The course's fencing step, run as the course runs it: a leader on one
// ZooKeeper follower, its successor on the other servers, and
// ensemble-scripts/stale-line.sh. With --fence=false the frozen leader's
// stale line lands after its successor's first, with an older epoch; with
// the fence on (the default) the file refuses it and the log says so. The
// script opens the window on a real ensemble by watching the leader's
// connection and the processes' states, not by fixed sleeps, and tries
// the leader's next line by itself when it was late before the delete;
// after the delete, the successor's speed is not in its hands, so a round
// that misses the window (the script says which step was late and exits
// 1) is tried again, up to three times, but the wrong outcome is never
// accepted.
func TestStaleLineLandsOnlyWithoutTheFence(t *testing.T) {
	t.Parallel()
	zktest.RequireZooKeeper(t)
	dir := t.TempDir()
	killLeftovers(t, dir)
	// The servers' default tick (2 s), as a student's: the script freezes
	// one from half a second before the leader's line until the leader has
	// acted on its answer, a second or so, which a 200 ms tick's sync limit
	// (1 s) would not allow.
	env := []string{"ENSEMBLE_DIR=" + filepath.Join(dir, "ensemble"), "ZK_BASE_PORT=" + strconv.Itoa(freeBase(t))}
	ens := func(args ...string) string { return runScript(t, env, "ensemble.sh", args...) }
	ens("start", "3")
	t.Cleanup(func() { ens("clean") })
	follower, others := splitOneFollower(t, ens("status"))
	bin := zktest.BuildSpeaker(t)
	for _, fence := range []bool{false, true} {
		t.Run(fmt.Sprintf("fence=%v", fence), func(t *testing.T) {
			for try := 1; ; try++ {
				round := filepath.Join(dir, fmt.Sprintf("fence-%v-%d", fence, try))
				said, missed := staleLineRound(t, bin, round, follower, others, fence, env)
				if !missed {
					return
				}
				if try == 3 {
					t.Fatalf("three rounds missed the window; the last said:\n%s", said)
				}
				t.Logf("round %d missed the window; again. It said:\n%s", try, said)
			}
		})
	}
}

// runScript runs ensemble-scripts/<script> with env added, and fails the
// test when it fails.
func runScript(t *testing.T, env []string, script string, args ...string) string {
	t.Helper()
	out, err := scriptCmd(t, env, script, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// scriptCmd prepares ensemble-scripts/<script> with env added.
func scriptCmd(t *testing.T, env []string, script string, args ...string) *exec.Cmd {
	t.Helper()
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "ensemble-scripts", script)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// splitOneFollower reads ensemble.sh status: the address of one follower,
// and the other servers' addresses joined by commas.
func splitOneFollower(t *testing.T, status string) (follower, others string) {
	t.Helper()
	var rest []string
	for _, line := range strings.Split(strings.TrimSpace(status), "\n")[1:] {
		f := strings.Fields(line)
		addr := "127.0.0.1:" + f[1]
		if follower == "" && f[2] == "follower" {
			follower = addr
			continue
		}
		rest = append(rest, addr)
	}
	if follower == "" {
		t.Fatalf("no follower in:\n%s", status)
	}
	return follower, strings.Join(rest, ",")
}

// waitLog waits until the file at path holds want.
func waitLog(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if data, _ := os.ReadFile(path); strings.Contains(string(data), want) {
			return
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(path)
			t.Fatalf("%s never said %q:\n%s", path, want, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// staleLineRound starts a (on follower, fenced or not) and then b (on
// others), in round, runs stale-line.sh on a, and checks the outcome. It
// reports what the script said, and whether it missed the window (exit 1,
// neither outcome): the caller tries again. Each round elects on a path of
// its own: the killed speakers of an earlier round keep their znodes until
// their sessions expire, and a would wait behind them.
func staleLineRound(t *testing.T, bin, round, follower, others string, fence bool, env []string) (said string, missed bool) {
	t.Helper()
	if err := os.MkdirAll(round, 0o755); err != nil {
		t.Fatal(err)
	}
	outFile, aLog := filepath.Join(round, "out.txt"), filepath.Join(round, "a.log")
	path := "/" + filepath.Base(round)
	a := startLogged(t, aLog, bin, "--name", "a", "--interval", "2s", "--servers", follower, "--path", path,
		"--out", outFile, "--fence="+strconv.FormatBool(fence))
	waitLog(t, aLog, `msg="became leader"`)
	b := startLogged(t, filepath.Join(round, "b.log"), bin, "--name", "b", "--servers", others, "--path", path, "--out", outFile)
	waitLog(t, filepath.Join(round, "b.log"), `msg="waiting in line"`)
	out, err := scriptCmd(t, env, "stale-line.sh", strconv.Itoa(a.Process.Pid), aLog).CombinedOutput()
	said = string(out)
	_ = a.Process.Kill()
	_ = b.Process.Kill()
	stale := staleLines(t, outFile)
	log, _ := os.ReadFile(aLog)
	refused := strings.Contains(string(log), `msg="fenced: this speaker's epoch is older than one already in the file`)
	switch {
	case fence && len(stale) > 0:
		t.Fatalf("with the fence, a stale line landed: %q\nstale-line.sh said:\n%s", stale, said)
	case !fence && refused:
		t.Fatalf("with --fence=false, the fence refused a line:\n%s", log)
	case err != nil && (len(stale) > 0 || refused):
		t.Fatalf("stale-line.sh failed (%v), yet the lesson happened:\n%s", err, said)
	case err != nil:
		return said, true
	case fence && !refused:
		t.Fatalf("stale-line.sh passed, but a's log has no fenced line:\n%s\nstale-line.sh said:\n%s", log, said)
	case !fence && len(stale) == 0:
		t.Fatalf("stale-line.sh passed, but no stale line is in %s:\nstale-line.sh said:\n%s", outFile, said)
	case !fence && !strings.Contains(said, "A stale line landed: a wrote after its successor"):
		t.Errorf("stale-line.sh did not say that the stale line landed:\n%s", said)
	case fence && !strings.Contains(said, "The fence refused the stale line"):
		t.Errorf("stale-line.sh did not say that the fence refused the line:\n%s", said)
	}
	t.Logf("stale-line.sh said:\n%s", said)
	return said, false
}

// staleLines returns each line of out that has a lower epoch than a line
// before it: a leader's line after a newer leader's.
func staleLines(t *testing.T, out string) []string {
	t.Helper()
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stale []string
	newest := int64(0)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l, err := speaker.ParseLine(sc.Text())
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if l.Epoch < newest {
			stale = append(stale, sc.Text())
		}
		newest = max(newest, l.Epoch)
	}
	return stale
}
