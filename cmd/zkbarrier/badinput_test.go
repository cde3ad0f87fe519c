package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Bad input: exit status 2, one line on stderr that names the problem,
// nothing on stdout, and nothing created in ZooKeeper.
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
		{[]string{"set", "-s", server}, "set: missing PATH"},
		{[]string{"set", "-s", server, "t-bad"}, `PATH "t-bad" is not absolute`},
		{[]string{"wait", "-s", server, "/t-bad/"}, `PATH "/t-bad/" ends in /`},
		{[]string{"remove", "-s", server, "/t-bad", "x"}, `unexpected argument "x" after PATH`},
		{[]string{"set", "-s", server, "--timeout", "0", "/t-bad"}, "--timeout"},
		{[]string{"run", "-s", server, "/t-bad", "--", "true"}, "--count: missing"},
		{[]string{"run", "-s", server, "--count", "0", "/t-bad", "--", "true"}, `--count: "0" must be a whole number, 1 or more`},
		{[]string{"run", "-s", server, "--count", "two", "/t-bad", "--", "true"}, "--count"},
		{[]string{"run", "-s", server, "--count", "2", "/t-bad"}, "run: no command to run"},
		{[]string{"run", "-s", server, "--count", "2"}, "run: missing PATH"},
		{[]string{"run", "-s", server, "--count", "2", "/t-bad", "--", "/no/such/cmd"}, "CMD:"},
		{[]string{"run", "-s", server, "--count", "2", "--name", "--", "/t-bad", "true"}, "--name"},
		{[]string{"run", "-s", server, "--count", "2", "--metrics", "nohost", "/t-bad", "--", "true"}, "--metrics"},
		{[]string{"run", "-s", "localhost", "--count", "2", "/t-bad", "--", "true"}, "--servers"},
		{[]string{"wait", "-s", server, "--log-level", "loud", "/t-bad"}, "--log-level"},
		{[]string{"frob", "/t-bad"}, `no command "frob"`},
	} {
		p := zktest.Run(t, bin, tc.args...)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, err := p.Wait(ctx)
		cancel()
		if err != nil {
			t.Fatalf("zkbarrier %q did not exit: %v", tc.args, err)
		}
		errOut := p.Stderr()
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || p.Stdout() != "" || len(lines) != 1 || !strings.HasPrefix(errOut, "zkbarrier: ") || !strings.Contains(errOut, tc.names) {
			t.Errorf("zkbarrier %q: status %d, stdout %q, stderr %q; want status 2, one line naming %q", tc.args, code, p.Stdout(), errOut, tc.names)
		}
	}
	if testing.Short() {
		return
	}
	rz := zktest.Connect(t, servers, 2*time.Second)
	ok, _, err := rz.Exists(context.Background(), "/t-bad")
	if err != nil || ok {
		t.Errorf("bad input created /t-bad (or the check failed: %v)", err)
	}
}
