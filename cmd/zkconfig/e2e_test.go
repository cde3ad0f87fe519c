package main_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
)

// set and get by hand: exact output, a missing key, values with spaces and
// empty ones, and the znode as ZooKeeper holds it.
func TestSetGet(t *testing.T) {
	t.Parallel()
	s := server(t)
	dir := fresh("/t/setget")
	base := []string{"--servers", s, "--path", dir}
	get := func(key string) result { return run(t, append(append([]string{"get"}, base...), key)...) }

	if r := get("colour"); r.code != 1 || r.stdout != "" || r.stderr != "zkconfig: no such key \"colour\" ("+dir+"/colour)\n" {
		t.Fatalf("get of a missing key: %+v, want exit 1 and one line naming it", r)
	}
	for _, value := range []string{"blue", "dark green", "", "-1"} {
		if r := mustRun(t, append(append([]string{"set"}, base...), "colour", value)...); r.stdout != "" || r.stderr != "" {
			t.Fatalf("set %q printed %+v, want nothing", value, r)
		}
		if r := get("colour"); r.code != 0 || r.stdout != value+"\n" || r.stderr != "" {
			t.Fatalf("get after set %q: %+v", value, r)
		}
	}
	rz := zktest.Connect(t, []string{s}, 4*time.Second)
	data, st, err := rz.Get(context.Background(), dir+"/colour")
	if err != nil || string(data) != "-1" || st.Version != 3 {
		t.Fatalf("the znode holds %q at version %v (%v), want -1 at 3", data, st, err)
	}
}

// --auth: the znodes set creates are the identity's to change, anyone's
// to read; a stranger's set fails with one line and exit 1.
func TestAuth(t *testing.T) {
	t.Parallel()
	s := server(t)
	dir := fresh("/t-auth")
	base := []string{"--servers", s, "--path", dir}
	mustRun(t, append(append([]string{"set", "--auth", "ann:secret"}, base...), "colour", "blue")...)
	if r := mustRun(t, append(append([]string{"get"}, base...), "colour")...); r.stdout != "blue\n" {
		t.Fatalf("a stranger's get: %q, want blue", r.stdout)
	}
	r := run(t, append(append([]string{"set"}, base...), "colour", "red")...)
	if r.code != 1 || !strings.Contains(r.stderr, "not authenticated") || !strings.Contains(r.stderr, "--auth") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("a stranger's set: %+v, want exit 1 and one line saying to give --auth", r)
	}
	u := start(t, append(append([]string{"update", "--every", "100ms"}, base...), "colour")...)
	if code := waitExit(t, u, 10*time.Second, "a stranger's update"); code != 1 || !strings.HasPrefix(lastLine(u.Stderr()), "zkconfig: not allowed") || !strings.Contains(u.Stderr(), "--auth") {
		t.Fatalf("a stranger's update: exit %d, stderr %q; want exit 1 and a last line saying to give --auth", code, u.Stderr())
	}
	mustRun(t, append(append([]string{"set", "--auth", "ann:secret"}, base...), "colour", "green")...)
	rz := zktest.Connect(t, []string{s}, 4*time.Second)
	for _, p := range []string{dir, dir + "/colour"} {
		acl, _, err := rz.Conn().GetACL(p)
		if err != nil || len(acl) != 2 || acl[0].Scheme != "digest" || acl[0].Perms != zk.PermAll || acl[1].Perms != zk.PermRead {
			t.Fatalf("ACL of %s: %+v (%v), want ann's digest with all rights and world read", p, acl, err)
		}
	}
}

// update writes, watch follows: every line is "time path = value", the
// updater's values are 0 to 99, the watcher's are the updater's in order
// (perhaps fewer), and it ends on the last one written. Both exit 0 on
// SIGTERM.
func TestUpdateAndWatch(t *testing.T) {
	t.Parallel()
	s := server(t)
	dir := fresh("/t/uw")
	path := dir + "/colour"
	watcher := start(t, "watch", "--servers", s, "--path", dir, "colour")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := watcher.WaitForStderr(ctx, "does not exist; waiting for it to be written"); err != nil {
		t.Fatal(err)
	}
	updater := start(t, "update", "--servers", s, "--path", dir, "--every", "100ms", "colour")
	waitValues(t, updater, path, 15, 15*time.Second, "the updater writes")
	stop(t, updater, "update")
	written, last := stoppedUpdater(t, updater, path)
	for _, v := range written {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 99 {
			t.Fatalf("the updater wrote %q, want a number from 0 to 99", v)
		}
	}
	waitLastOf(t, watcher, path, last, 5*time.Second, "the watcher ends on the last value written")
	stop(t, watcher, "watch")
	subsequence(t, values(t, watcher.Stdout(), path), written)
	if r := mustRun(t, "get", "--servers", s, "--path", dir, "colour"); !slices.Contains(last, strings.TrimSuffix(r.stdout, "\n")) {
		t.Fatalf("get after the updater: %q, want its last value, one of %q", r.stdout, last)
	}
}

// As every command does, set and get warn when the server changed the
// session timeout asked for.
func TestGrantedSessionTimeoutIsWarnedAbout(t *testing.T) {
	t.Parallel()
	dir := fresh("/t/granted")
	for _, args := range [][]string{{"set", "motd", "hi"}, {"get", "motd"}} {
		args = append([]string{args[0], "--servers", server(t), "--path", dir, "--session-timeout", zktest.BelowMinSession}, args[1:]...)
		if r := mustRun(t, args...); !strings.Contains(r.stderr, zktest.RaisedWarning) {
			t.Errorf("zkconfig %q: stderr %q, want %s", args, r.stderr, zktest.RaisedWarning)
		}
	}
}
