package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Bad input exits 2 with one line that names the problem, prints nothing
// on stdout, and creates nothing: every check comes before the client. Under
// -short the servers are an address where nothing listens, so that nothing
// could be created anyway; otherwise the real server is asked afterwards.
func TestBadInputExits2WithOneLineAndCreatesNothing(t *testing.T) {
	t.Parallel()
	addr := "127.0.0.1:1"
	if !testing.Short() {
		addr = server(t)
	}
	for _, tc := range []struct {
		args []string // after the command's name; --servers and --path are added unless given
		want string   // the whole line after "zkconfig: ", or its start when it ends in "..."
	}{
		{[]string{"get"}, `get: missing KEY (usage: zkconfig get [options] KEY)`},
		{[]string{"set", "colour"}, `set: missing VALUE (usage: zkconfig set [options] KEY VALUE)`},
		{[]string{"get", "a/b"}, `KEY "a/b": '/' is not allowed; use letters, digits, '.', '_' and '-'`},
		{[]string{"update", ""}, `KEY "": it is empty`},
		{[]string{"watch", ".."}, `KEY "..": . and .. are not znode names`},
		{[]string{"set", "a b", "v"}, `KEY "a b": ' ' is not allowed; use letters, digits, '.', '_' and '-'`},
		{[]string{"get", strings.Repeat("k", 256)}, `KEY "` + strings.Repeat("k", 256) + `": it is 256 bytes long, at most 255 allowed`},
		{[]string{"get", "colour", "size"}, `get: unexpected argument "size" after KEY`},
		{[]string{"watch", "colour", "--every", "1s"}, `watch: unexpected argument "--every" after KEY (it is no flag of zkconfig watch, and flags go before KEY)`},
		{[]string{"update", "colour", "--every", "1s"}, `--every: flags go before KEY (see zkconfig update --help)`},
		{[]string{"update", "--every", "0", "colour"}, `--every: must be positive, got 0`},
		{[]string{"update", "--every", "soon", "colour"}, `--every: "soon" is not a duration (e.g. 500ms, 2s)`},
		{[]string{"update", "--every"}, `--every: needs a value`},
		{[]string{"update", "--retries", "3", "colour"}, `--retries: applies only with --resilient: the plain updater never retries`},
		{[]string{"update", "--resilient", "--retries", "-1", "colour"}, `--retries: "-1" must be a whole number, 0 or more`},
		{[]string{"update", "--resilient", "--retry-interval", "0s", "colour"}, `--retry-interval: must be positive, got 0s`},
		{[]string{"watch", "--path", "config", "colour"}, `--path: "config" is not absolute (it must start with /)`},
		{[]string{"watch", "--path", "/", "colour"}, `--path: keys cannot live in the root itself; use a znode below it, such as /config`},
		{[]string{"get", "--path", "/zookeeper/x", "colour"}, `--path: "/zookeeper/x" is under /zookeeper, which ZooKeeper reserves`},
		{[]string{"watch", "--path", "/config\u0085", "colour"}, `--path: "/config\u0085" contains a control character`},
		{[]string{"update", "--path", "/config\ufffe", "colour"}, `--path: "/config\ufffe" contains U+FFFE, which ZooKeeper does not allow in a path`},
		{[]string{"get", "--path", "--servers", "colour"}, `--path: needs a value: it took the flag --servers as its value`},
		{[]string{"set", "--auth", "nopassword", "colour", "v"}, `--auth: must be user:password, both non-empty, without whitespace`},
		{[]string{"set", "--auth", "", "colour", "v"}, `--auth: is empty: give user:password, or leave the flag out`},
		{[]string{"get", "--servers", "", "colour"}, `--servers: must not be empty (e.g. 127.0.0.1:2181)`},
		{[]string{"get", "--servers", "localhost", "colour"}, `--servers: "localhost" is not host:port`},
		{[]string{"get", "--session-timeout", "-1s", "colour"}, `--session-timeout: must be positive, got -1s`},
		{[]string{"watch", "--log-level", "loud", "colour"}, `--log-level: unknown value "loud" (want debug, info, warn or error)`},
		{[]string{"get", "--bogus", "colour"}, `--bogus: no such flag (see zkconfig get --help)`},
		{[]string{"frobnicate"}, `no command "frobnicate" (want update, watch, set, get or help)`},
		{[]string{"help", "frobnicate"}, `help: no command "frobnicate" (want update, watch, set, get or help)`},
	} {
		args := tc.args
		if len(args) > 0 && args[0] != "frobnicate" && args[0] != "help" {
			extra := []string{}
			if !contains(args, "--servers") {
				extra = append(extra, "--servers", addr)
			}
			if !contains(args, "--path") {
				extra = append(extra, "--path", "/t/bad")
			}
			args = append(append([]string{args[0]}, extra...), args[1:]...)
		}
		r := run(t, args...)
		line := strings.TrimSuffix(r.stderr, "\n")
		prefix, wantPrefix := strings.CutSuffix(tc.want, "...")
		ok := line == "zkconfig: "+tc.want || wantPrefix && strings.HasPrefix(line, "zkconfig: "+prefix)
		if r.code != 2 || r.stdout != "" || strings.Contains(line, "\n") || !ok {
			t.Errorf("zkconfig %q: exit %d, stdout %q, stderr %q; want exit 2, no stdout, one line %q", args, r.code, r.stdout, r.stderr, "zkconfig: "+tc.want)
		}
	}
	if testing.Short() {
		return
	}
	rz := zktest.Connect(t, []string{addr}, 4*time.Second)
	for _, p := range []string{"/t/bad", "/config", "/zookeeper/x"} {
		if ok, _, err := rz.Exists(context.Background(), p); err != nil || ok {
			t.Errorf("%s exists = %v (%v) after bad input, want nothing created", p, ok, err)
		}
	}
}

func contains(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}
