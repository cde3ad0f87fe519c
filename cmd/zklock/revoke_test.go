package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// revoke runs `zklock revoke` on the test's path, unless args give another.
func revoke(t *testing.T, servers string, args ...string) *zktest.Process {
	t.Helper()
	return zktest.Run(t, zklockBin(t), append([]string{"revoke", "--servers", servers, "--path", zktest.Path(t)}, args...)...)
}

// `zklock revoke` ends a --revocable holder's CMD: one that stops at its
// SIGTERM within the grace, and one that ignores it, killed once the grace
// is over. The holder exits 75, revoke says whom it asked and that it let
// go, and the next in line starts its CMD.
func TestRevokeEndsARevocableHoldersCMDAndTheNextStarts(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for _, tc := range []struct {
		name, trap, ended string
	}{
		{"stops at SIGTERM", `trap 'echo "term ann 0" >> %[1]s; exit 0' TERM`, "term ann"},
		{"ignores SIGTERM", `trap '' TERM`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "held.txt")
			const grace = time.Second
			ann := run(t, cluster.ConnString(), "--revocable", "--name", "ann", "--grace", grace.String(), "--", "/bin/sh", "-c",
				fmt.Sprintf(tc.trap+`; echo "start ann 0" >> %[1]s; while :; do sleep 0.05; done`, file))
			waitForLine(t, file, "start ann")
			bob := run(t, cluster.ConnString(), "--name", "bob", "--", "/bin/sh", "-c", fmt.Sprintf(`echo "start bob 0" >> %s`, file))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := bob.WaitForStderr(ctx, "waiting in line"); err != nil {
				t.Fatalf("bob never queued: %v\n%s", err, bob.Stderr())
			}
			asked := time.Now()
			r := revoke(t, cluster.ConnString(), "--timeout", "10s")
			if code := wait(t, r, 15*time.Second); code != 0 {
				t.Fatalf("revoke exited %d\nstdout:\n%s\nstderr:\n%s", code, r.Stdout(), r.Stderr())
			}
			if out := r.Stdout(); !strings.Contains(out, "asked ann to let go of "+zktest.Path(t)+": ") || !strings.Contains(out, "ann let go after ") || strings.Contains(out, "bob") {
				t.Fatalf("revoke said:\n%s\nwant ann asked, and let go; bob not asked", out)
			}
			if code := wait(t, ann, 10*time.Second); code != 75 {
				t.Fatalf("ann exited %d, want 75\n%s", code, ann.Stderr())
			}
			took := time.Since(asked)
			waitForLine(t, file, "start bob")
			if tc.ended != "" {
				waitForLine(t, file, tc.ended)
			}
			if !strings.Contains(ann.Stderr(), "revoke requested") || !strings.Contains(ann.Stderr(), `because="zklock revoke asked for the lock"`) {
				t.Fatalf("ann's log does not say she was asked and let go:\n%s", ann.Stderr())
			}
			if code := wait(t, bob, 10*time.Second); code != 0 {
				t.Fatalf("bob exited %d\n%s", code, bob.Stderr())
			}
			if tc.ended == "" && took < grace {
				t.Fatalf("ann, ignoring SIGTERM, let go %v after the request, before her grace of %v ended", took, grace)
			}
			t.Logf("ann let go %v after the request", took.Round(time.Millisecond))
		})
	}
}

// A holder without --revocable is asked all the same: it logs the request,
// once, and its CMD carries on; revoke exits 1 at its --timeout, naming it.
func TestANonRevocableHolderLogsTheRequestAndCarriesOn(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	dir := t.TempDir()
	file, gate := filepath.Join(dir, "held.txt"), filepath.Join(dir, "gate")
	ann := run(t, cluster.ConnString(), "--name", "ann", "--", "/bin/sh", "-c",
		fmt.Sprintf(`echo "start ann 0" >> %[1]s; until [ -e %[2]s ]; do sleep 0.02; done; echo "end ann 0" >> %[1]s`, file, gate))
	waitForLine(t, file, "start ann")
	r := revoke(t, cluster.ConnString(), "--timeout", session.String())
	code := wait(t, r, 10*time.Second)
	stderr := strings.TrimRight(r.Stderr(), "\n")
	if code != 1 || !strings.HasPrefix(stderr, "zklock revoke: ann still held ") || strings.Contains(stderr, "\n") {
		t.Fatalf("revoke exited %d, stderr %q; want 1 and one line saying ann still holds", code, stderr)
	}
	if n := strings.Count(ann.Stderr(), "not revocable: holding on"); n != 1 {
		t.Fatalf("ann logged the request %d times, want once:\n%s", n, ann.Stderr())
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := wait(t, ann, 10*time.Second); code != 0 {
		t.Fatalf("ann exited %d, want 0: her CMD should have run to its end\n%s", code, ann.Stderr())
	}
	waitForLine(t, file, "end ann")
}

// Revoke on a lock nobody holds says so, exits 0, and creates nothing.
func TestRevokeWithNobodyHolding(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	r := revoke(t, cluster.ConnString())
	if code := wait(t, r, 10*time.Second); code != 0 || r.Stdout() != "nobody holds "+zktest.Path(t)+"\n" {
		t.Fatalf("revoke exited %d, said %q; want 0 and that nobody holds", code, r.Stdout())
	}
	rz := zktest.Connect(t, cluster.Servers(), 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if ok, _, err := rz.Exists(ctx, zktest.Path(t)); err != nil || ok {
		t.Fatalf("revoke created %s (%v, %v)", zktest.Path(t), ok, err)
	}
}

// Bad input to `zklock revoke`: one line naming the problem, exit 2,
// nothing created.
func TestRevokeBadInput(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"--path", []string{"--path", "lock"}},
		{"--path", []string{"--path", "/lock/"}},
		{"--timeout", []string{"--timeout", "0s"}},
		{"--timeout", []string{"--timeout", "soon"}},
		{"--name", []string{"--name", "two\nlines"}},
		{"--session-timeout", []string{"--session-timeout", "-1s"}},
		{`unexpected argument "CMD"`, []string{"CMD"}},
		{"--revocable", []string{"--revocable"}},
	} {
		r := revoke(t, cluster.ConnString(), tc.args...)
		code := wait(t, r, 10*time.Second)
		stderr := strings.TrimRight(r.Stderr(), "\n")
		if code != 2 || strings.Contains(stderr, "\n") || !strings.Contains(stderr, tc.want) {
			t.Errorf("revoke %q: exit %d, stderr %q; want 2 and one line naming %s", tc.args, code, stderr, tc.want)
		}
	}
}

// A holder's znode made with --auth may be marked only under the same
// identity: revoke without it exits 1 with one line saying to give
// --auth, and the holder is not asked; with it, the holder lets go.
func TestRevokeNeedsTheHoldersAuth(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	owner := run(t, cluster.ConnString(), "--auth", "ops:s3cret", "--revocable", "--", "/bin/sh", "-c", "sleep 30")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := owner.WaitForStderr(ctx, "holding the lock"); err != nil {
		t.Fatal(err)
	}
	r := revoke(t, cluster.ConnString(), "--timeout", "5s")
	code := wait(t, r, 10*time.Second)
	stderr := strings.TrimRight(r.Stderr(), "\n")
	if code != 1 || strings.Contains(stderr, "\n") || !strings.HasPrefix(stderr, "zklock revoke: not allowed") || !strings.Contains(stderr, "--auth") {
		t.Fatalf("revoke without --auth: exit %d, stderr %q; want 1 and one line saying to give --auth", code, stderr)
	}
	if strings.Contains(owner.Stderr(), "revoke requested") {
		t.Fatalf("the holder was asked by a revoke its ACL refused:\n%s", owner.Stderr())
	}
	r = revoke(t, cluster.ConnString(), "--auth", "ops:s3cret")
	if code := wait(t, r, 20*time.Second); code != 0 {
		t.Fatalf("revoke with --auth exited %d\n%s", code, r.Stderr())
	}
	if code := wait(t, owner, 10*time.Second); code != 75 {
		t.Fatalf("the holder exited %d, want 75\n%s", code, owner.Stderr())
	}
}

// A revoked holder cut off from ZooKeeper while its CMD stops cannot
// delete its znode: the lock passes on only when its session expires. Its
// last line says so, and not that it released the lock; it still exits
// 75, for it let go as far as it could, and revoke sees the znode go with
// the session.
func TestARevokedHolderCutOffSaysTheLockGoesWithItsSession(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	file := filepath.Join(t.TempDir(), "held.txt")
	ann := run(t, proxy.Addr(), "--revocable", "--name", "ann", "--", "/bin/sh", "-c",
		fmt.Sprintf(`trap 'sleep 1; exit 0' TERM; echo "start ann 0" >> %s; while :; do sleep 0.05; done`, file))
	waitForLine(t, file, "start ann")
	r := revoke(t, cluster.ConnString(), "--timeout", "15s")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ann.WaitForStderr(ctx, "stopping CMD"); err != nil {
		t.Fatalf("ann never heard the request: %v\n%s", err, ann.Stderr())
	}
	proxy.Cut() // while CMD's trap runs
	if code := wait(t, ann, 4*session); code != 75 {
		t.Fatalf("ann exited %d, want 75\n%s", code, ann.Stderr())
	}
	if code := wait(t, r, 15*time.Second); code != 0 {
		t.Fatalf("revoke exited %d: the znode should have gone with ann's session\n%s\n%s", code, r.Stdout(), r.Stderr())
	}
	errOut := ann.Stderr()
	if strings.Contains(errOut, `msg="released the lock"`) || !strings.Contains(errOut, "when our session ends") {
		t.Fatalf("ann's log says she released the lock, or not that it goes with her session; her znode stayed:\n%s", errOut)
	}
}

// A revoke request that lands while CMD is stopping already, for zklock
// was asked to stop, is logged as what it is: CMD is not stopped a second
// time, and zklock exits as asked to stop, with CMD's status; and the
// other way round, a stop asked while CMD stops at a revoke, after which
// zklock exits 75.
func TestASecondReasonToStopCMDSaysItStopsAlready(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	const byTerm, byRevoke = "asked to stop: stopping CMD", "revocable, and asked to let go: stopping CMD"
	for _, tc := range []struct {
		name, first, second, already string
		status                       int
	}{
		{"revoke after SIGTERM", byTerm, byRevoke, "revocable, and asked to let go: CMD is stopping already", 4},
		{"SIGTERM after revoke", byRevoke, byTerm, "asked to stop: CMD is stopping already", 75},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ann := slowToStop(t, cluster.ConnString())
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var r *zktest.Process
			for _, step := range []string{tc.first, tc.second} {
				if step == byTerm {
					ann.Term()
				} else {
					r = revoke(t, cluster.ConnString(), "--timeout", "10s")
				}
				if step == tc.first {
					if err := ann.WaitForStderr(ctx, step); err != nil {
						t.Fatalf("ann never began to stop: %v\n%s", err, ann.Stderr())
					}
				}
			}
			if code := wait(t, ann, 10*time.Second); code != tc.status {
				t.Fatalf("ann exited %d, want %d, as %q asked first\n%s", code, tc.status, tc.first, ann.Stderr())
			}
			wait(t, r, 15*time.Second)
			if errOut := ann.Stderr(); strings.Contains(errOut, tc.second) || !strings.Contains(errOut, tc.already) {
				t.Fatalf("ann's log says %q, though CMD was stopping already, or not %q:\n%s", tc.second, tc.already, errOut)
			}
		})
	}
}

// slowToStop starts ann, --revocable, whose CMD takes a second to stop at
// SIGTERM and then exits 4, and returns once CMD runs.
func slowToStop(t *testing.T, servers string) *zktest.Process {
	t.Helper()
	file := filepath.Join(t.TempDir(), "held.txt")
	ann := run(t, servers, "--revocable", "--name", "ann", "--grace", "5s", "--", "/bin/sh", "-c",
		fmt.Sprintf(`trap 'sleep 1; exit 4' TERM; echo "start ann 0" >> %s; while :; do sleep 0.05; done`, file))
	waitForLine(t, file, "start ann")
	return ann
}

// Revoke asks the holders one by one; when ZooKeeper refuses it the
// second (bob's znode carries an ACL that revoke has no --auth for), it
// still says that it asked the first, who lets go all the same.
func TestRevokeRefusedHalfWaySaysWhomItAsked(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ann := run(t, cluster.ConnString(), "--shared", "--revocable", "--name", "ann", "--", "/bin/sh", "-c", "sleep 30")
	if err := ann.WaitForStderr(ctx, "holding the lock"); err != nil {
		t.Fatal(err)
	}
	bob := run(t, cluster.ConnString(), "--shared", "--revocable", "--name", "bob", "--auth", "ops:s3cret", "--", "/bin/sh", "-c", "sleep 30")
	if err := bob.WaitForStderr(ctx, "holding the lock"); err != nil {
		t.Fatal(err)
	}
	r := revoke(t, cluster.ConnString(), "--timeout", "5s")
	if code := wait(t, r, 10*time.Second); code != 1 || !strings.Contains(r.Stderr(), "not allowed") {
		t.Fatalf("revoke without bob's --auth: exit %d\n%s; want 1, not allowed", code, r.Stderr())
	}
	if code := wait(t, ann, 10*time.Second); code != 75 {
		t.Fatalf("ann exited %d, want 75: she was asked\n%s", code, ann.Stderr())
	}
	if out := r.Stdout(); !strings.Contains(out, "asked ann to let go of ") {
		t.Fatalf("revoke asked ann, and she let go, but it said:\n%s", out)
	}
	bob.Term()
	wait(t, bob, 10*time.Second)
}
