package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"zkspeaker/cmd/zkview/internal/browser"
	"zkspeaker/internal/testkit/prebuilt"
	"zkspeaker/internal/testkit/zktest"
)

var (
	// servers is the 3-server ensemble TestMain starts (none under -short).
	servers []string
	// bin is the zkview binary TestMain builds.
	bin string
	// tools holds the other commands, whose work the page shows.
	tools string
)

// TestMain builds zkview and the commands it watches, and starts one real
// 3-server ensemble that all the package's tests share, each on paths of
// its own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "zkview-tools-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tools = dir
	if prebuiltDir, ok := prebuilt.Commands("speaker", "zklock", "zkgroup", "zkconfig", "seqid", "zkbarrier", "zkqueue"); ok {
		tools = prebuiltDir
	} else if out, err := exec.Command("go", "build", "-o", dir+"/", "../speaker", "../zklock", "../zkgroup", "../zkconfig", "../seqid", "../zkbarrier", "../zkqueue").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := zktest.MainCommandEnsemble(m, &servers, &bin)
	os.RemoveAll(dir)
	os.Exit(code)
}

// tool is the path of one of the other commands.
func tool(name string) string { return filepath.Join(tools, name) }

// serve starts zkview with args on a free port and returns its address.
func serve(t *testing.T, args ...string) (string, *zktest.Process) {
	t.Helper()
	p := zktest.Run(t, bin, append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.Stdout(), "\n") {
		if time.Now().After(deadline) {
			t.Fatalf("zkview printed no address; stderr:\n%s", p.Stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return strings.TrimSpace(p.Stdout()), p
}

// page is the zkview page in a headless Chromium.
type page struct {
	t   *testing.T
	tab context.Context
}

// open loads url in a new headless Chromium, closed at the test's end.
func open(t *testing.T, url string) *page {
	t.Helper()
	tab, closeTab, err := browser.Open(context.Background(), 1400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeTab)
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	return &page{t: t, tab: tab}
}

// eval runs a JavaScript expression in the page and returns its value
// as a string (String(value)). Its own bound only catches a page that hangs:
// a Chromium starved by a busy machine has answered after 5 s, so the bounds
// a test asserts are await's, which measure the page, not this call.
func (p *page) eval(expr string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.tab, 30*time.Second)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string]("String("+expr+")"))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return out
}

// roles is what the page shows in the element with id panel: each named
// element's data-name=data-role, in page order.
func (p *page) roles(panel string) string {
	return p.eval(fmt.Sprintf(
		`[...document.querySelectorAll("#%s [data-name]")].map(e => e.dataset.name + "=" + e.dataset.role).join(" ")`, panel))
}

// await waits, without reloading the page, until show() returns want, and
// returns how long that took.
func (p *page) await(what string, within time.Duration, want string, show func() string) time.Duration {
	p.t.Helper()
	start := time.Now()
	var got string
	for {
		if got = show(); got == want {
			return time.Since(start)
		}
		if time.Since(start) > within {
			p.t.Fatalf("the page never showed %s within %v: want %q, shows %q", what, within, want, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
