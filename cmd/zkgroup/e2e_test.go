package main_test

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// The chapter's run through the binary, with exact output: create, three
// members join, list, a second duck is refused, each member leaves on a
// different signal and is gone at once (the session timeout is 10 s: only
// a delete can be that fast), delete, and the group is no more.
func TestCreateJoinListDelete(t *testing.T) {
	t.Parallel()
	needServer(t)
	s := servers[0]
	createGroup(t, "t-zoo")
	want(t, "", "zkgroup: group t-zoo already exists\n", 1, "create", "-s", s, "t-zoo")
	want(t, "", "t-zoo has no members\n", 0, "list", "-s", s, "t-zoo")

	procs := map[string]*zktest.Process{}
	for _, m := range []string{"goat", "duck", "cow"} {
		procs[m] = joinProc(t, s, "t-zoo", m, "--session-timeout", "10s")
	}
	want(t, "cow\nduck\ngoat\n", "", 0, "list", "-s", s, "t-zoo")
	want(t, "cow\nduck\ngoat\n", "", 0, "list", "-s", s, "/t-zoo")

	_, errOut, code := run(t, "join", "-s", s, "t-zoo", "duck")
	if code != 1 || !regexp.MustCompile(`^zkgroup: duck is already a member \(session 0x[0-9a-f]+\)\n$`).MatchString(lastLine(errOut)) {
		t.Fatalf("a second duck: status %d, stderr %q; want 1 and one line naming the session", code, errOut)
	}

	remaining := []string{"cow", "duck", "goat"}
	for _, leave := range []struct {
		member string
		sig    syscall.Signal
	}{{"goat", syscall.SIGTERM}, {"cow", syscall.SIGINT}, {"duck", syscall.SIGHUP}} {
		p := procs[leave.member]
		p.Signal(leave.sig)
		if code := exitWithin(t, p, 3*time.Second); code != 0 {
			t.Fatalf("%s after %v: status %d, want 0\n%s", leave.member, leave.sig, code, p.Stderr())
		}
		if !strings.Contains(p.Stderr(), "left the group and closed the session") {
			t.Fatalf("%s after %v did not say it left:\n%s", leave.member, leave.sig, p.Stderr())
		}
		remaining = without(remaining, leave.member)
		if len(remaining) == 0 {
			want(t, "", "t-zoo has no members\n", 0, "list", "-s", s, "t-zoo")
		} else {
			want(t, strings.Join(remaining, "\n")+"\n", "", 0, "list", "-s", s, "t-zoo")
		}
	}

	// Delete with a member in: the member's process learns it and ends.
	duck := joinProc(t, s, "t-zoo", "duck")
	want(t, "deleted /t-zoo and its 1 member(s): duck\n", "", 0, "delete", "-s", s, "t-zoo")
	if code := exitWithin(t, duck, 5*time.Second); code != 1 || lastLine(duck.Stderr()) != "zkgroup: group t-zoo was deleted; duck is no longer a member\n" {
		t.Fatalf("duck after the delete: status %d, last line %q", code, lastLine(duck.Stderr()))
	}
	// The error is said once, as the last line: the member's own log line
	// records the change of state, not a second error.
	if strings.Contains(duck.Stderr(), "level=ERROR") {
		t.Fatalf("duck reported its end as an error twice:\n%s", duck.Stderr())
	}
	want(t, "", "zkgroup: no group t-zoo\n", 1, "list", "-s", s, "t-zoo")
	want(t, "", "zkgroup: no group t-zoo\n", 1, "delete", "-s", s, "t-zoo")
	_, errOut, code = run(t, "join", "-s", s, "t-zoo", "duck")
	if code != 1 || lastLine(errOut) != "zkgroup: no group t-zoo\n" {
		t.Fatalf("join of a deleted group: status %d, stderr %q", code, errOut)
	}
	want(t, "", "zkgroup: /t-nothere does not exist; create it before /t-nothere/zoo\n", 1, "create", "-s", s, "t-nothere/zoo")
}

// With --auth, the znodes created carry DigestACL: anyone may list, only
// the identity may delete or join.
func TestAuth(t *testing.T) {
	t.Parallel()
	needServer(t)
	s := servers[0]
	// At the top, under the open /, the group itself stays deletable by
	// anyone once empty, and create says so.
	_, errOut, code := run(t, "create", "-s", s, "--auth", "ann:secret", "t-auth")
	if code != 0 || !strings.Contains(errOut, "anyone may still delete the group while it has no members") {
		t.Fatalf("create --auth under /: status %d, stderr %q; want 0 and a warning that / lets anyone delete it", code, errOut)
	}
	t.Cleanup(func() { removeAll(admin(t), "/t-auth") })
	joinProc(t, s, "t-auth", "duck", "--auth", "ann:secret")
	want(t, "duck\n", "", 0, "list", "-s", s, "t-auth")
	_, errOut, code = run(t, "delete", "-s", s, "t-auth")
	if code != 1 || !strings.Contains(errOut, "not allowed") {
		t.Fatalf("delete without --auth: status %d, stderr %q; want 1, not allowed", code, errOut)
	}
	want(t, "duck\n", "", 0, "list", "-s", s, "t-auth")
	// A join with other credentials, or none, can never be: one line, at once.
	for _, auth := range [][]string{{"--auth", "ann:wrong"}, nil} {
		p := start(t, append(append([]string{"join", "-s", s}, auth...), "t-auth", "goose")...)
		code := exitWithin(t, p, 10*time.Second)
		if code != 1 || !strings.HasPrefix(lastLine(p.Stderr()), "zkgroup: not allowed") || !strings.Contains(lastLine(p.Stderr()), "--auth") ||
			strings.Contains(p.Stderr(), "trying again") {
			t.Fatalf("join %v: status %d, stderr %q; want 1 at once and one line saying to give --auth", auth, code, p.Stderr())
		}
	}
	want(t, "duck\n", "", 0, "list", "-s", s, "t-auth")
	want(t, "deleted /t-auth and its 1 member(s): duck\n", "", 0, "delete", "-s", s, "--auth", "ann:secret", "t-auth")
}

// Under a parent made with the same --auth, an empty group is protected
// too: ZooKeeper checks its delete against that parent's ACL. create then
// warns of nothing.
func TestAuthProtectsAnEmptyGroupUnderItsOwnParent(t *testing.T) {
	t.Parallel()
	needServer(t)
	s, auth := servers[0], []string{"--auth", "ann:secret"}
	t.Cleanup(func() {
		run(t, append(append([]string{"delete", "-s", s}, auth...), "t-authp/zoo")...)
		run(t, append(append([]string{"delete", "-s", s}, auth...), "t-authp")...)
	})
	if out, errOut, code := run(t, append(append([]string{"create", "-s", s}, auth...), "t-authp")...); code != 0 || out != "created /t-authp\n" {
		t.Fatalf("create the parent: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	want(t, "created /t-authp/zoo\n", "", 0, append(append([]string{"create", "-s", s}, auth...), "t-authp/zoo")...)
	_, errOut, code := run(t, "delete", "-s", s, "t-authp/zoo")
	if code != 1 || !strings.Contains(errOut, "not allowed") {
		t.Fatalf("delete of the empty group without --auth: status %d, stderr %q; want 1, not allowed", code, errOut)
	}
	want(t, "deleted /t-authp/zoo, which had no members\n", "", 0, append(append([]string{"delete", "-s", s}, auth...), "t-authp/zoo")...)
	want(t, "deleted /t-authp, which had no members\n", "", 0, append(append([]string{"delete", "-s", s}, auth...), "t-authp")...)
}

func lastLine(s string) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) == 0 {
		return ""
	}
	l := lines[len(lines)-1]
	if !strings.HasSuffix(l, "\n") {
		l += "\n"
	}
	return l
}

func without(list []string, x string) []string {
	var out []string
	for _, s := range list {
		if s != x {
			out = append(out, s)
		}
	}
	return out
}

// The server grants 2 to 20 ticks whatever a client asks; a command whose
// session timeout was changed says so, as the speaker does, with both
// values: the docs' bounds count from the granted one.
func TestGrantedSessionTimeoutIsWarnedAbout(t *testing.T) {
	t.Parallel()
	needServer(t)
	rz := admin(t)
	t.Cleanup(func() { removeAll(rz, "/t-granted") })
	out, errOut, code := run(t, "create", "-s", servers[0], "--session-timeout", zktest.BelowMinSession, "t-granted")
	want := zktest.RaisedWarning
	if code != 0 || out != "created /t-granted\n" || !strings.Contains(errOut, want) {
		t.Fatalf("create with --session-timeout %s: status %d, stdout %q, stderr %q; want 0, created, and a warning with %s", zktest.BelowMinSession, code, out, errOut, want)
	}
}
