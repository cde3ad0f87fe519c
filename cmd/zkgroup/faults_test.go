package main_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// members lists group through rz, nil when there is no group.
func members(t *testing.T, rz *recoverable.RecoverableZookeeper, group string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := rz.Children(ctx, group)
	if err != nil {
		return nil
	}
	return m
}

// owner returns the session that owns the ephemeral path, 0 if none.
func owner(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, st, err := rz.Exists(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return 0
	}
	return st.EphemeralOwner
}

// The create of `zkgroup join` reaches the server, which makes the member,
// and its reply is lost with the connection. The join goes on, finds the
// znode is its own session's, and leaves exactly one member.
func TestJoinLostCreateReply(t *testing.T) {
	t.Parallel()
	needServer(t)
	rz := admin(t)
	createGroup(t, "t-lost")
	proxy := zktest.NewProxy(t, servers[0])
	proxy.ResetAfterCreate("/t-lost/")
	duck := joinProc(t, proxy.Addr(), "t-lost", "duck")
	select {
	case <-proxy.Fired():
	default:
		t.Fatal("the trap never fired: the create's reply was not lost")
	}
	if got := members(t, rz, "/t-lost"); len(got) != 1 || got[0] != "duck" {
		t.Fatalf("members = %q, want duck once", got)
	}
	if !strings.Contains(duck.Stderr(), "create found its own node after a lost reply") {
		t.Fatalf("the join did not say it found its own znode:\n%s", duck.Stderr())
	}
	session := regexp.MustCompile(`msg="joined the group" member=/t-lost/duck session=(0x[0-9a-f]+)`).FindStringSubmatch(duck.Stderr())
	if session == nil {
		t.Fatalf("no joined line naming the session:\n%s", duck.Stderr())
	}
	if got := owner(t, rz, "/t-lost/duck"); fmt.Sprintf("0x%x", got) != session[1] {
		t.Fatalf("the member znode's owner is 0x%x, want the joiner's %s", got, session[1])
	}
}

// A member cut off for longer than its session timeout is removed by the
// server; when the network heals, it joins again on its new session, by
// itself, and says so.
func TestJoinRejoinsAfterExpiry(t *testing.T) {
	t.Parallel()
	needServer(t)
	rz := admin(t)
	createGroup(t, "t-expiry")
	proxy := zktest.NewProxy(t, servers[0])
	duck := joinProc(t, proxy.Addr(), "t-expiry", "duck", "--session-timeout", "2s")
	before := owner(t, rz, "/t-expiry/duck")
	proxy.Cut()
	eventually(t, 8*time.Second, "the server expires duck's session", func() bool { return owner(t, rz, "/t-expiry/duck") == 0 })
	proxy.Heal()
	eventually(t, 8*time.Second, "duck joins again", func() bool { return owner(t, rz, "/t-expiry/duck") != 0 })
	if after := owner(t, rz, "/t-expiry/duck"); after == before {
		t.Fatalf("duck is back on its old session 0x%x", before)
	}
	if err := duck.WaitForStderr(context.Background(), "joined the group again"); err != nil {
		t.Fatal(err)
	}
	if got := members(t, rz, "/t-expiry"); len(got) != 1 {
		t.Fatalf("members = %q, want duck once", got)
	}
}

// `list --watch` prints the first reading, then a timed + or - line per
// change, through a reset of its connection, until the group is deleted.
func TestListWatch(t *testing.T) {
	t.Parallel()
	needServer(t)
	s := servers[0]
	createGroup(t, "t-watch")
	proxy := zktest.NewProxy(t, s)
	// A session long enough to outlast the reset while cow's process starts.
	w := start(t, "list", "--watch", "-s", proxy.Addr(), "--session-timeout", "6s", "t-watch")
	waitOut(t, w, "t-watch has no members\n", 10*time.Second)

	duck := joinProc(t, s, "t-watch", "duck")
	waitOut(t, w, "+ duck\n", 5*time.Second)
	proxy.Reset()
	joinProc(t, s, "t-watch", "cow")
	proxy.Restore()
	waitOut(t, w, "+ cow\n", 10*time.Second)
	duck.Term()
	waitOut(t, w, "- duck\n", 5*time.Second)
	want(t, "deleted /t-watch and its 1 member(s): cow\n", "", 0, "delete", "-s", s, "t-watch")
	if code := exitWithin(t, w, 5*time.Second); code != 0 {
		t.Fatalf("--watch after the delete: status %d, want 0\n%s", code, w.Stderr())
	}
	stamp := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d\d\d `)
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(w.Stdout(), "\n"), "\n") {
		if !stamp.MatchString(line) {
			t.Fatalf("line without a time: %q", line)
		}
		got = append(got, stamp.ReplaceAllString(line, ""))
	}
	wantLines := []string{"t-watch has no members", "+ duck", "+ cow", "- duck", "- cow", "t-watch was deleted"}
	if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("--watch printed:\n%s\nwant (after the times):\n%s", w.Stdout(), strings.Join(wantLines, "\n"))
	}
	want(t, "", "zkgroup: no group t-watch\n", 1, "list", "--watch", "-s", s, "t-watch")
}
