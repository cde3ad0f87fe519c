package main_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// With --auth, the znodes seqid makes change only for that identity: a
// worker without it is told, in one line, to give it, and takes no ID;
// reading stays open. With it, IDs are handed out as usual.
func TestAuthKeepsOthersFromTakingIDs(t *testing.T) {
	t.Parallel()
	const creds = "orders:s3cret"
	conn := server(t)
	root := fmt.Sprintf("/auth-%d", time.Now().UnixNano())
	common := []string{"--servers", conn, "--root", root}
	with := func(cmd string, args ...string) []string {
		return append(append([]string{cmd}, common...), args...)
	}
	mustSeqid(t, with("create", "--auth", creds, "--start", "10", "orders")...)
	p := startPersister(t, conn, t.TempDir(), "guarded", "--root", root, "--election", root+"-persist", "--auth", creds)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.p.WaitForStderr(ctx, "now the persistence leader"); err != nil {
		t.Fatal(err)
	}
	if out := mustSeqid(t, with("next", "--auth", creds, "orders")...); out != "10\n" {
		t.Fatalf("next with the identity printed %q, want 10", out)
	}

	code, out, errOut := seqid(t, with("next", "orders")...)
	if code != 1 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "--auth") {
		t.Errorf("next without the identity: exit %d, stdout %q, stderr %q; want exit 1 and one line saying to give --auth", code, out, errOut)
	}
	if code, _, errOut := seqid(t, with("create", "other")...); code != 1 || !strings.Contains(errOut, "--auth") {
		t.Errorf("create under the guarded root without the identity: exit %d, %q", code, errOut)
	}
	if f := strings.Fields(mustSeqid(t, with("list")...)); len(f) != 10 || f[5] != "orders" || f[7] != "11" {
		t.Errorf("list without the identity: %q; want orders, next 11 (the refused next took nothing)", f)
	}
}

// A persistence process without the identity must not sit on the
// leadership of sequences it cannot raise: as the leader it exits with one
// line, and the rightful process behind it in line takes over. One that
// the election's own ACL refuses exits at once too.
func TestPersistWithoutTheIdentityStepsAside(t *testing.T) {
	t.Parallel()
	const creds = "orders:s3cret"
	conn := server(t)
	root := fmt.Sprintf("/auth-persist-%d", time.Now().UnixNano())
	mustSeqid(t, "create", "--servers", conn, "--root", root, "--auth", creds, "--start", "10", "orders")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	refused := func(p *persister, what string) {
		t.Helper()
		code, err := p.p.Wait(ctx)
		lines := strings.Split(strings.TrimSpace(p.p.Stderr()), "\n")
		if strings.Contains(p.p.Stderr(), "try again") || strings.Contains(p.p.Stderr(), "trying again") {
			t.Fatalf("it tried again before giving up; want it to give up on the first refusal:\n%s", p.p.Stderr())
		}
		if strings.Contains(p.p.Stderr(), "level=ERROR") {
			t.Errorf("%s: an ERROR line before the one line says the refusal twice:\n%s", what, p.p.Stderr())
		}
		if last := lines[len(lines)-1]; err != nil || code != 1 || !strings.HasPrefix(last, "seqid: not allowed") || !strings.Contains(last, "--auth") {
			t.Fatalf("%s: exit %d (%v), last line %q; want exit 1 and one line saying to give --auth", what, code, err, last)
		}
	}

	// The stranger is first in an election open to all, so it leads.
	election := root + "-open"
	stranger := startPersister(t, conn, t.TempDir(), "stranger", "--root", root, "--election", election)
	if err := stranger.p.WaitForStderr(ctx, "now the persistence leader"); err != nil {
		t.Fatal(err)
	}
	rightful := startPersister(t, conn, t.TempDir(), "rightful", "--root", root, "--election", election, "--auth", creds)
	refused(stranger, "the leading stranger")
	if err := rightful.p.WaitForStderr(ctx, "now the persistence leader"); err != nil {
		t.Fatalf("the rightful process did not take over: %v\n%s", err, rightful.p.Stderr())
	}
	if out := mustSeqid(t, "next", "--servers", conn, "--root", root, "--auth", creds, "orders"); out != "10\n" {
		t.Fatalf("next after the handover printed %q, want 10", out)
	}

	// An election made with the identity refuses the stranger outright.
	guarded := root + "-guarded"
	r2 := startPersister(t, conn, t.TempDir(), "rightful-2", "--root", root, "--election", guarded, "--auth", creds)
	if err := r2.p.WaitForStderr(ctx, "joined the election"); err != nil {
		t.Fatal(err)
	}
	refused(startPersister(t, conn, t.TempDir(), "stranger-2", "--root", root, "--election", guarded), "the refused stranger")
}
