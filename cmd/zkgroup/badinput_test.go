package main_test

import (
	"strings"
	"testing"
)

// Bad input: exit status 2, one line on stderr that names the problem,
// nothing on stdout, and nothing created in ZooKeeper. Under -short it
// checks the words and the status only.
func TestBadInputExits2WithOneLineAndCreatesNothing(t *testing.T) {
	t.Parallel()
	server := "127.0.0.1:1" // nothing listens: bad input must fail before connecting
	if !testing.Short() {
		server = servers[0]
	}
	for _, tc := range []struct {
		args  []string
		names string // what the line must name
	}{
		{[]string{"create", "-s", server}, "create: missing GROUP (usage: zkgroup create [options] GROUP)"},
		{[]string{"create", "-s", server, "t-bad", "extra"}, `create: unexpected argument "extra" after GROUP`},
		{[]string{"create", "-s", server, "t-bad", "--bogus"}, `unexpected argument "--bogus" after GROUP (it is no flag of zkgroup create, and flags go before GROUP)`},
		{[]string{"join", "-s", server, "t-bad"}, "join: missing MEMBER"},
		{[]string{"join", "-s", server, "t-bad", "du/ck"}, `member "du/ck"`},
		{[]string{"join", "-s", server, "t-bad", ".."}, `member ".."`},
		{[]string{"create", "-s", server, "t-bad/"}, `group "t-bad/"`},
		{[]string{"create", "-s", server, "t-bad//x"}, `group "t-bad//x"`},
		{[]string{"create", "-s", server, "zookeeper"}, `group "zookeeper"`},
		{[]string{"create", "-s", server, "t-bad\nx"}, "control character"},
		{[]string{"create", "-s", "localhost", "t-bad"}, "--servers"},
		{[]string{"create", "-s", server, "--session-timeout", "0", "t-bad"}, "--session-timeout"},
		{[]string{"create", "-s", server, "--session-timeout", "soon", "t-bad"}, "--session-timeout"},
		{[]string{"create", "-s", server, "--timeout", "-1s", "t-bad"}, "--timeout"},
		{[]string{"create", "-s", server, "--auth", "nopassword", "t-bad"}, "--auth"},
		{[]string{"create", "-s", server, "--auth", "", "t-bad"}, "--auth: is empty"},
		{[]string{"create", "-s", server, "--log-level", "loud", "t-bad"}, "--log-level"},
		{[]string{"create", "-s", server, "--frob", "t-bad"}, "--frob"},
		{[]string{"create", "-s", server, "--session-timeout", "--auth", "t-bad"}, "--session-timeout"},
		{[]string{"create", "t-bad", "-s", server}, "-s: flags go before GROUP (see zkgroup create --help)"},
		{[]string{"-s", server, "list", "t-bad"}, "-s: put it after the command (zkgroup list -s"},
		{[]string{"list", "-s", server, "--watch=maybe", "t-bad"}, "--watch"},
		{[]string{"frob", "t-bad"}, `no command "frob"`},
		{[]string{"help", "frob"}, `no command "frob"`},
	} {
		out, errOut, code := run(t, tc.args...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.HasPrefix(errOut, "zkgroup: ") || !strings.Contains(errOut, tc.names) {
			t.Errorf("zkgroup %q: status %d, stdout %q, stderr %q; want status 2, one line naming %q", tc.args, code, out, errOut, tc.names)
		}
	}
	if testing.Short() {
		return
	}
	rz := admin(t)
	for _, p := range []string{"/t-bad", "/t-bad/du", "/t-bad/x"} {
		if exists(t, rz, p) {
			t.Errorf("bad input created %s", p)
		}
	}
}
