package zktest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/ensemble"
)

// NoZooKeeperBound is how soon every command must have said that no
// ZooKeeper answers: at once in fact (a refused connection is known in
// milliseconds, a silent host after a second), the rest is slack for a
// busy machine.
const NoZooKeeperBound = 15 * time.Second

// NoZooKeeper returns an address where nothing listens: a port of a free
// layout, below the ephemeral range, which nothing here hands out again.
func NoZooKeeper(t testing.TB) string {
	t.Helper()
	base, err := ensemble.FreeBase(1)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", base)
}

// NoZooKeeperCommands runs each of bin's commands with nothing listening
// at its -s address, in parallel: those of once must fail at once
// (ExpectFailsWithoutZooKeeper), those of waits must wait and say so
// (ExpectWaitsWithoutZooKeeper, ended by Ctrl-C with status 0). Each
// command is its words as typed, without -s.
func NoZooKeeperCommands(t *testing.T, bin string, once, waits [][]string) {
	t.Helper()
	SkipShort(t)
	addr := NoZooKeeper(t)
	for _, args := range once {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			ExpectFailsWithoutZooKeeper(t, addr, bin, WithServers(args, addr)...)
		})
	}
	for _, args := range waits {
		t.Run(strings.Join(args, " ")+" waits", func(t *testing.T) {
			t.Parallel()
			ExpectWaitsWithoutZooKeeper(t, addr, 0, bin, WithServers(args, addr)...)
		})
	}
}

// WithServers puts "-s addr" right after the command in args (a
// subcommand's flags come before its arguments).
func WithServers(args []string, addr string) []string {
	return append([]string{args[0], "-s", addr}, args[1:]...)
}

// noZooKeeperHint is what every command says, in a WARN or its one line,
// when nothing answers at addr.
func noZooKeeperHint(addr string) string {
	return "no ZooKeeper answers at " + addr + ": start one with ensemble-scripts/ensemble.sh start 3"
}

// ExpectFailsWithoutZooKeeper runs a command that does one thing and
// exits, with nothing listening at addr: it must exit 1 within
// NoZooKeeperBound, with one line on stderr naming addr and how to start
// a server, and nothing on stdout.
func ExpectFailsWithoutZooKeeper(t *testing.T, addr, bin string, args ...string) {
	t.Helper()
	p := Run(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), NoZooKeeperBound)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil || code != 1 {
		t.Fatalf("%s: exit %d, %v; want 1 within %v\n%s", strings.Join(args, " "), code, err, NoZooKeeperBound, p.Stderr())
	}
	lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], noZooKeeperHint(addr)) {
		t.Errorf("%s: stderr, want one line with %q:\n%s", strings.Join(args, " "), noZooKeeperHint(addr), p.Stderr())
	}
	if p.Stdout() != "" {
		t.Errorf("%s: stdout, want nothing:\n%s", strings.Join(args, " "), p.Stdout())
	}
}

// quietSpan is how long a waiting command is watched after its warning:
// long enough for a warning per try, as a retry loop would give, to show
// twice, since go-zookeeper fails a queued request after each pass over the
// servers, a second or so.
const quietSpan = 3 * time.Second

// ExpectWaitsWithoutZooKeeper runs a command that runs until it is
// stopped, with nothing listening at addr: within NoZooKeeperBound it must
// warn that nothing answers, how to start a server and that it waits; and
// it must warn no more, once or at each try, while it goes on waiting.
// Then Ctrl-C ends it with the status given. The process is returned for
// what else the caller checks.
func ExpectWaitsWithoutZooKeeper(t *testing.T, addr string, status int, bin string, args ...string) *Process {
	t.Helper()
	what := strings.Join(args, " ")
	p := Run(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), NoZooKeeperBound)
	defer cancel()
	hint := noZooKeeperHint(addr)
	if err := p.WaitForStderr(ctx, hint); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, p.Stderr())
	}
	select {
	case <-p.exited:
		t.Fatalf("%s: exited %d while it should wait:\n%s", what, p.code, p.Stderr())
	case <-time.After(quietSpan):
	}
	p.Signal(os.Interrupt)
	code, err := p.Wait(ctx)
	if err != nil || code != status {
		t.Errorf("%s: Ctrl-C while waiting: exit %d, %v; want %d\n%s", what, code, err, status, p.Stderr())
	}
	stderr := p.Stderr()
	if n := strings.Count(stderr, "level=WARN"); n != 1 || !strings.Contains(stderr, "waiting until one answers") {
		t.Errorf("%s: %d warnings, want one that says it waits:\n%s", what, n, stderr)
	}
	if p.Stdout() != "" {
		t.Errorf("%s: stdout, want nothing:\n%s", what, p.Stdout())
	}
	return p
}
