package main_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	speakerstatus "zkspeaker/cmd/speaker/internal/status"
	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// TestStatusAsksEveryServer pins each speaker to its own server, so that
// each server alone knows one candidate's watches, and asks status through
// one server only. Status must find the others in /zookeeper/config; say
// "not connected" for a killed candidate, whose session outlives its
// process; and say "not visible" for a candidate whose server is down,
// never a guess. status --watch shows its own disconnection in its display,
// with nothing on stderr, and Ctrl-C ends it quietly.
func TestStatusAsksEveryServer(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	// a on the ZooKeeper leader, b and c on the followers: killing b's
	// server then leaves a quorum and the same ZooKeeper leader.
	leader := cluster.Leader()
	if leader < 0 {
		t.Fatal("no ZooKeeper leader")
	}
	pin := map[string]int{"a": leader, "b": (leader + 1) % 3, "c": (leader + 2) % 3}
	out := filepath.Join(t.TempDir(), "out.txt")
	procs := map[string]*zktest.Process{}
	for _, name := range []string{"a", "b", "c"} {
		// Long sessions: c's znode must outlive its process while status looks.
		p := speakersWith(t, []string{"--session-timeout", "15s"}, cluster.Server(pin[name]), out, "sequential", 200*time.Millisecond, name)
		procs[name] = p[name]
	}
	electiontest.WaitTerms(t, out, 10*time.Second, "a speaks", func(ts []electiontest.Term) bool { return len(ts) > 0 && ts[0].Name == "a" })
	asLeader := func() string { return status(t, "--servers", cluster.Server(leader)) }

	watcher := zktest.RunSpeaker(t, "status", "--watch", "--servers", cluster.Server(pin["b"]))

	// Each follower's watch is known only to its own server.
	checkQueue(t, asLeader(), "a", func(rs []row, i int) string {
		if i == 0 {
			return "itself"
		}
		return fmt.Sprintf("%s (%s)", rs[i-1].seq, rs[i-1].name)
	})
	electiontest.Eventually(t, 10*time.Second, "status --watch shows 3 candidates", func() bool { return len(rows(watcher.Stdout())) == 3 })

	// A killed candidate watches nothing, though its znode stays until its
	// session expires.
	procs["c"].Kill()
	killed := time.Now()
	got := asLeader()
	if rs := rows(got); len(rs) != 3 || rs[2].name != "c" || rs[2].watches != "none: not connected" {
		t.Errorf("want c, killed, shown with its znode and as not connected:\n%s", got)
	}
	expiresAt(t, watcher, "c", killed, 15*time.Second)

	// b's server goes down: b's session cannot move (it knows no other
	// server), and no server that answers can say what b watches.
	cluster.Kill(pin["b"])
	got = asLeader()
	if rs := rows(got); len(rs) < 2 || rs[1].name != "b" || rs[1].watches != "not visible from these servers" {
		t.Errorf("want b shown as not visible while its server is down:\n%s", got)
	}
	if strings.Contains(got, "?") {
		t.Errorf("status guesses while a server is down:\n%s", got)
	}

	// The watcher was connected to that server: its display says so.
	electiontest.Eventually(t, 10*time.Second, "status --watch says it is disconnected", func() bool {
		return strings.Contains(watcher.Stdout(), "status itself is disconnected")
	})
	watcher.Signal(syscall.SIGINT)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if code, err := watcher.Wait(ctx); err != nil || code != 0 {
		t.Errorf("status --watch on Ctrl-C: exit %d, %v; want 0", code, err)
	}
	if s := watcher.Stderr(); s != "" {
		t.Errorf("status --watch wrote to stderr, across its display:\n%s", s)
	}
}

// TestStatusWatchThroughZooKeeperLeaderChange kills the ZooKeeper leader
// under status --watch. While the servers elect another, every client moves
// and no server answers for a moment: the display may say that it cannot
// see, but must never show a guess, and must end showing the line as it is.
func TestStatusWatchThroughZooKeeperLeaderChange(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	servers := cluster.ConnString()
	out := filepath.Join(t.TempDir(), "out.txt")
	speakersWith(t, []string{"--session-timeout", "15s"}, servers, out, "sequential", 200*time.Millisecond, "a", "b", "c")
	watcher := zktest.RunSpeaker(t, "status", "--watch", "--servers", servers)
	predecessors := func(rs []row) bool {
		for i, r := range rs {
			want := "itself"
			if i > 0 {
				want = fmt.Sprintf("%s (%s)", rs[i-1].seq, rs[i-1].name)
			}
			if r.watches != want {
				return false
			}
		}
		return len(rs) == 3
	}
	electiontest.Eventually(t, 10*time.Second, "status --watch shows the line", func() bool { return predecessors(rows(watcher.Stdout())) })

	leader := cluster.Leader()
	cluster.Kill(leader)
	electiontest.Eventually(t, 30*time.Second, "status --watch shows the line again, with the old ZooKeeper leader down", func() bool {
		frames := strings.Split(watcher.Stdout(), "election /")
		last := frames[len(frames)-1]
		return predecessors(rows(watcher.Stdout())) && regexp.MustCompile(`(?m)^  `+cluster.Server(leader)+`\s+down$`).MatchString(last) && modes(last)["leader"] == 1
	})
	for _, line := range strings.Split(watcher.Stdout(), "\n") {
		if rowPattern.MatchString(line) && strings.Contains(line, "?") {
			t.Errorf("status --watch guessed a watch while ZooKeeper changed leaders: %q\n%s", line, watcher.Stdout())
			break
		}
	}
	if s := watcher.Stderr(); s != "" {
		t.Errorf("status --watch wrote to stderr, across its display:\n%s", s)
	}
}

// gone is the line status --watch prints of a candidate whose process is
// gone, with the time its session expires.
var gone = regexp.MustCompile(`(?m)^  (\S+)'s process is gone \(not connected\): a server last heard from it at \S+, so its (\S+) session expires at (\d\d:\d\d:\d\d\.\d\d\d), and its znode goes then$`)

// expiresAt waits for status --watch to say that name's process is gone,
// and holds the expiry it gives to what the servers can know: its session
// ends a session timeout after they last heard from it, which is before
// the kill, and after the ping before the look that last saw it connected.
func expiresAt(t *testing.T, watcher *zktest.Process, name string, killed time.Time, session time.Duration) {
	t.Helper()
	var m []string
	electiontest.Eventually(t, 10*time.Second, "status --watch says that "+name+"'s process is gone", func() bool {
		for _, f := range gone.FindAllStringSubmatch(watcher.Stdout(), -1) {
			if f[1] == name {
				m = f
			}
		}
		return m != nil
	})
	clock, err := time.Parse("15:04:05.000", m[3])
	if err != nil || m[2] != session.String() {
		t.Fatalf("status says %q: want a %v session and a time", m[0], session)
	}
	y, mo, d := killed.UTC().Date()
	expires := time.Date(y, mo, d, clock.Hour(), clock.Minute(), clock.Second(), clock.Nanosecond(), time.UTC)
	// The look before the kill was at most a recheck before it; the
	// session's last ping at most a third of its timeout before that.
	earliest := killed.Add(session - session/3 - speakerstatus.Recheck - electiontest.Slack)
	if latest := killed.Add(session); expires.Before(earliest) || expires.After(latest) {
		t.Errorf("status says %s's session expires at %s; killed at %s, want between %s and %s",
			name, m[3], killed.UTC().Format("15:04:05.000"), earliest.UTC().Format("15:04:05.000"), latest.UTC().Format("15:04:05.000"))
	}
}
