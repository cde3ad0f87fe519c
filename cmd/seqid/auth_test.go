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
	if f := strings.Fields(mustSeqid(t, with("list")...)); len(f) != 8 || f[4] != "orders" || f[5] != "11" {
		t.Errorf("list without the identity: %q; want orders, next 11 (the refused next took nothing)", f)
	}
}
