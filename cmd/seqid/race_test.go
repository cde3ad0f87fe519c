package main_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// Two workers race for one compare-and-set: the one that read first is
// made to write second, and ZooKeeper refuses its write, as the version it
// names is gone. seqid next says, at info, how many of its compare-and-sets
// lost so, which is what lets a run-along show the race happening.
func TestNextSaysWhenItLostACompareAndSet(t *testing.T) {
	t.Parallel()
	conn := server(t)
	root := fmt.Sprintf("/race-%d", time.Now().UnixNano())
	p := startPersister(t, conn, t.TempDir(), "race", "--root", root, "--election", root+"-persist")
	mustSeqid(t, "create", "--servers", conn, "--root", root, "--mode", "cas", "orders")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.p.WaitForStderr(ctx, "raised the limit"); err != nil {
		t.Fatal(err)
	}
	next := func(servers string) []string {
		return []string{"next", "--log-level", "info", "--servers", servers, "--root", root, "orders"}
	}

	// Alone, a worker's first compare-and-set wins.
	code, out, errOut := seqid(t, next(conn)...)
	if code != 0 || out != "1\n" {
		t.Fatalf("a worker alone: exit %d, printed %q\n%s", code, out, errOut)
	}
	if want := `msg="took the IDs at our first compare-and-set" sequence=orders first=1 count=1 lost=0`; !strings.Contains(errOut, want) {
		t.Errorf("a worker alone logged:\n%s\nwant a line with: %s", errOut, want)
	}

	// slow reads through a proxy that holds the answer while fast takes
	// an ID: slow's write then names a version that is gone.
	proxy := zktest.NewProxy(t, conn)
	answered, release := proxy.HoldReply(zktest.OpGetData)
	defer release()
	slow := zktest.Run(t, bin, next(proxy.Addr())...)
	select {
	case <-answered:
	case <-ctx.Done():
		t.Fatalf("slow never read the sequence:\n%s", slow.Stderr())
	}
	if out := mustSeqid(t, next(conn)...); out != "2\n" {
		t.Fatalf("fast printed %q, want 2", out)
	}
	release()
	if code, err := slow.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("slow: exit %d, %v\n%s", code, err, slow.Stderr())
	}
	if slow.Stdout() != "3\n" {
		t.Errorf("slow printed %q, want 3: the ID after fast's", slow.Stdout())
	}
	if want := `msg="took the IDs after another worker's write beat our compare-and-set" sequence=orders first=3 count=1 lost=1`; !strings.Contains(slow.Stderr(), want) {
		t.Errorf("slow logged:\n%s\nwant a line with: %s", slow.Stderr(), want)
	}
}
