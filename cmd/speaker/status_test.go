package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// status runs `speaker status` to the end and returns what it printed.
func status(t *testing.T, args ...string) string {
	t.Helper()
	return run(t, append([]string{"status"}, args...)...)
}

// run runs the speaker command to the end, wants exit status 0, and
// returns what it printed.
func run(t *testing.T, args ...string) string {
	t.Helper()
	p := zktest.RunSpeaker(t, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("speaker %v: exit %d, %v\n%s", args, code, err, p.Stderr())
	}
	return p.Stdout()
}

// row is one candidate line of `speaker status`.
type row struct {
	seq, name, watches, role string
}

var rowPattern = regexp.MustCompile(`^  (\d{10})\s+(\S+)\s+0x[0-9a-f]+\s+(.+?)\s+(leader|waiting)$`)

// rows picks the candidate lines out of the last election printed in out.
func rows(out string) []row {
	frames := strings.Split(out, "election /")
	var rs []row
	for _, line := range strings.Split(frames[len(frames)-1], "\n") {
		if m := rowPattern.FindStringSubmatch(line); m != nil {
			rs = append(rs, row{m[1], m[2], m[3], m[4]})
		}
	}
	return rs
}

// modes counts the server modes in status output.
func modes(out string) map[string]int {
	n := map[string]int{}
	_, servers, _ := strings.Cut(out, "servers\n")
	for _, line := range strings.Split(strings.TrimSpace(servers), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			n[f[1]]++
		}
	}
	return n
}

// checkQueue holds status output to the recipe: candidates in sequence
// order, the first leads and is the one writing, and each other one
// watches what want says.
func checkQueue(t *testing.T, out, writer string, want func(rs []row, i int) string) {
	t.Helper()
	rs := rows(out)
	if len(rs) != 3 {
		t.Fatalf("want 3 candidates, got %d:\n%s", len(rs), out)
	}
	if !slices.IsSortedFunc(rs, func(a, b row) int { return strings.Compare(a.seq, b.seq) }) {
		t.Errorf("candidates not in sequence order:\n%s", out)
	}
	for i, r := range rs {
		role := map[bool]string{true: "leader", false: "waiting"}[i == 0]
		if r.role != role || r.watches != want(rs, i) {
			t.Errorf("candidate %d = %+v, want role %s watching %q:\n%s", i, r, role, want(rs, i), out)
		}
	}
	if rs[0].name != writer {
		t.Errorf("status says %s leads, but %s writes the out file:\n%s", rs[0].name, writer, out)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	servers := cluster.ConnString()

	// First, while the default paths are fresh.
	t.Run("the fifth terminal", func(t *testing.T) { fifthTerminal(t, servers) })

	t.Run("sequential", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.txt")
		speakers(t, servers, out, "sequential", 200*time.Millisecond, "a", "b", "c")
		writer := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) > 0 })[0].Name
		got := status(t, "--servers", servers)
		checkQueue(t, got, writer, func(rs []row, i int) string {
			if i == 0 {
				return "itself" // to stop at once if an operator deletes it
			}
			return fmt.Sprintf("%s (%s)", rs[i-1].seq, rs[i-1].name)
		})
		if m := modes(got); m["leader"] != 1 || m["follower"] != 2 {
			t.Errorf("server modes %v, want one leader and two followers:\n%s", m, got)
		}
		if strings.Contains(got, "note:") {
			t.Errorf("a note, though --servers names every server:\n%s", got)
		}
		// Given one server of three, it finds the others in
		// /zookeeper/config (TestStatusAsksEveryServer pins each speaker to
		// a server, to be sure that this matters).
		one := status(t, "--servers", cluster.Servers()[0])
		checkQueue(t, one, writer, func(rs []row, i int) string {
			if i == 0 {
				return "itself"
			}
			return fmt.Sprintf("%s (%s)", rs[i-1].seq, rs[i-1].name)
		})
		if m := modes(one); m["leader"] != 1 || m["follower"] != 2 || strings.Contains(one, "note:") {
			t.Errorf("status with one server of three does not show all three:\n%s", one)
		}
	})

	t.Run("herd", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.txt")
		speakersWith(t, []string{"--watch", "children", "--path", "/herd"}, servers, out, "sequential", 200*time.Millisecond, "a", "b", "c")
		writer := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) > 0 })[0].Name
		checkQueue(t, status(t, "--servers", servers, "--path", "/herd"), writer, func([]row, int) string {
			// ZooKeeper does not list children watches; status says it infers this.
			return "all (children)?"
		})
	})

	t.Run("single-file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.txt")
		// A reader in another terminal watches /speaker too, as a waiting
		// candidate does: it is no candidate, and must not be listed as one.
		reader := zktest.RunSpeaker(t, "status", "--watch", "--servers", servers, "--election", "single-file")
		electiontest.Eventually(t, 10*time.Second, "the reader prints", func() bool { return strings.Contains(reader.Stdout(), "election /speaker") })
		speakers(t, servers, out, "single-file", 200*time.Millisecond, "a", "b", "c")
		writer := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) > 0 })[0].Name
		got := status(t, "--servers", servers, "--election", "single-file")
		if !regexp.MustCompile(`(?m)^  leader  ` + writer + `  session 0x[0-9a-f]+  epoch \d+$`).MatchString(got) {
			t.Errorf("want %s as the holder:\n%s", writer, got)
		}
		// The waiters own no znode, but each leaves its name where the
		// servers' watch lists show it.
		var others []string
		for _, name := range []string{"a", "b", "c"} {
			if name != writer {
				others = append(others, name)
			}
		}
		waiting := regexp.MustCompile(`(?m)^  waiting 2 sessions watch /speaker: ` +
			others[0] + ` \(0x[0-9a-f]+\) ` + others[1] + ` \(0x[0-9a-f]+\)$`)
		defer func() {
			if t.Failed() {
				t.Logf("status said last:\n%s", got)
			}
		}()
		electiontest.Eventually(t, 10*time.Second, "status names the 2 others waiting on /speaker", func() bool {
			got = status(t, "--servers", servers, "--election", "single-file")
			return waiting.MatchString(got)
		})
	})

	t.Run("watch", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.txt")
		procs := speakers(t, servers, out, "sequential", 200*time.Millisecond, "a", "b", "c")
		writer := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) > 0 })[0].Name
		watcher := zktest.RunSpeaker(t, "status", "--watch", "--servers", servers)
		electiontest.Eventually(t, 10*time.Second, "status shows 3 candidates", func() bool { return len(rows(watcher.Stdout())) == 3 })
		// Nothing changes while the three speak, so nothing more is printed;
		// the wait covers several settle periods and a server-mode recheck.
		time.Sleep(3 * time.Second) // the server modes are rechecked every 2 s
		if n := strings.Count(watcher.Stdout(), "election /"); n != 1 {
			t.Errorf("status --watch printed %d views of an election that did not change:\n%s", n, watcher.Stdout())
		}
		procs[writer].Term()
		// The next one in line takes over, and status shows it without
		// being asked again: its children watch fired.
		electiontest.Eventually(t, 10*time.Second, "status shows the successor", func() bool {
			rs := rows(watcher.Stdout())
			return len(rs) == 2 && rs[0].name != writer && rs[0].role == "leader"
		})
		next := electiontest.WaitTerms(t, out, 10*time.Second, "the successor speaks", func(ts []electiontest.Term) bool { return len(ts) == 2 })[1].Name
		if rs := rows(watcher.Stdout()); rs[0].name != next {
			t.Errorf("status shows %s leading, but %s writes:\n%s", rs[0].name, next, watcher.Stdout())
		}
		// The same run, read back by timeline: two terms, the failover gap
		// between them, nothing wrong.
		got := run(t, "timeline", out)
		if !strings.Contains(got, "2 terms, 0 anomalies") || !regexp.MustCompile(`(?m)^2\s+`+next+`\s.*\d+(\.\d+)?m?s\s*$`).MatchString(got) {
			t.Errorf("timeline of a real run: want 2 terms without anomalies, the second by %s with its gap:\n%s", next, got)
		}
		watcher.Term()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if code, err := watcher.Wait(ctx); err != nil || code != 0 {
			t.Errorf("status --watch on SIGTERM: exit %d, %v", code, err)
		}
		// It prints only changes: no view twice in a row (its time aside).
		frames := strings.Split(watcher.Stdout(), "election /")[1:]
		for i := 1; i < len(frames); i++ {
			_, prev, _ := strings.Cut(frames[i-1], "\n")
			_, cur, _ := strings.Cut(frames[i], "\n")
			if cur == prev {
				t.Errorf("status --watch printed the same view twice:\n%s", watcher.Stdout())
				break
			}
		}
	})
}

// stop ends a speaker with SIGTERM and waits for it: its znode is gone
// when stop returns.
func stop(t *testing.T, p *zktest.Process) {
	t.Helper()
	p.Term()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Errorf("speaker on SIGTERM: exit %d, %v", code, err)
	}
}

// fifthTerminal is the course's fifth terminal: it follows /election with
// --watch; the class stops the sequential speakers and starts single-file
// ones. The terminal must not just say that nobody speaks: it says what to
// run, and shows the election where someone does.
func fifthTerminal(t *testing.T, servers string) {
	out := filepath.Join(t.TempDir(), "out.txt")
	watcher := zktest.RunSpeaker(t, "status", "--watch", "--servers", servers)
	seq := speakers(t, servers, out, "sequential", 200*time.Millisecond, "s1")
	electiontest.Eventually(t, 10*time.Second, "status --watch shows s1", func() bool { return len(rows(watcher.Stdout())) == 1 })
	stop(t, seq["s1"])
	electiontest.Eventually(t, 10*time.Second, "status --watch shows nobody", func() bool { return strings.Contains(watcher.Stdout(), "no candidates: nobody speaks") })
	single := speakers(t, servers, out, "single-file", 200*time.Millisecond, "f1")
	defer stop(t, single["f1"]) // before the next subtest races for /speaker
	defer func() {
		if t.Failed() {
			t.Logf("status --watch printed:\n%s", watcher.Stdout())
		}
	}()
	hint := regexp.MustCompile(`(?s)no candidates: nobody speaks\n.*speaker status --watch --election single-file.*\n  leader  f1  session`)
	electiontest.Eventually(t, 10*time.Second, "status --watch says how to follow /speaker, and shows it", func() bool {
		frames := strings.Split(watcher.Stdout(), "election /election (sequential) at")
		return hint.MatchString(frames[len(frames)-1])
	})
}
