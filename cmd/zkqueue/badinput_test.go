package main_test

import (
	"strings"
	"testing"
)

// Bad input: exit status 2, one line on stderr naming the problem, nothing
// on stdout, nothing created in ZooKeeper.
func TestBadInputExits2WithOneLineAndCreatesNothing(t *testing.T) {
	t.Parallel()
	server := "127.0.0.1:1" // nothing listens: bad input must fail before connecting
	if !testing.Short() {
		server = servers[0]
	}
	for _, tc := range []struct {
		args  []string
		names string
	}{
		{[]string{"put", "-s", server, "/t-bad"}, "put: missing VALUE"},
		{[]string{"put", "-s", server, "t-bad", "x"}, `P: "t-bad" is not absolute`},
		{[]string{"put", "-s", server, "/t-bad/", "x"}, `P: "/t-bad/" ends in /`},
		{[]string{"put", "-s", server, "--priority", "1000", "/t-bad", "x"}, "--priority: 1000 is outside 0 to 999"},
		{[]string{"put", "-s", server, "--priority", "-1", "/t-bad", "x"}, "--priority"},
		{[]string{"put", "-s", server, "--priority", "high", "/t-bad", "x"}, "--priority"},
		{[]string{"take", "-s", server, "--delivery", "exactly-once", "/t-bad"}, `--delivery: "exactly-once" is neither`},
		{[]string{"take", "-s", server, "--work", "soon", "/t-bad"}, "--work"},
		{[]string{"take", "-s", server, "--work", "-1s", "/t-bad"}, "--work: -1s is negative"},
		{[]string{"take", "-s", server, "--metrics", "127.0.0.1:9464", "/t-bad"}, "--metrics: only with --follow"},
		{[]string{"take", "-s", server, "--metrics", "nowhere", "--follow", "/t-bad"}, "--metrics"},
		{[]string{"list", "-s", "localhost", "/t-bad"}, "--servers"},
		{[]string{"list", "-s", server, "--timeout", "0s", "/t-bad"}, "--timeout"},
		{[]string{"list", "-s", server, "/t-bad", "extra"}, `unexpected argument "extra"`},
		{[]string{"frob", "/t-bad"}, `no command "frob"`},
	} {
		out, errOut, code := run(t, tc.args...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.HasPrefix(errOut, "zkqueue: ") || !strings.Contains(errOut, tc.names) {
			t.Errorf("zkqueue %q: status %d, stdout %q, stderr %q; want status 2, one line naming %q", tc.args, code, out, errOut, tc.names)
		}
	}
	if testing.Short() {
		return
	}
	if out, _, code := run(t, "list", "-s", server, "/t-bad"); code != 1 || out != "" {
		t.Errorf("bad input created /t-bad: list says status %d, %q", code, out)
	}
}
