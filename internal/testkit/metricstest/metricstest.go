// Package metricstest reads a command's --metrics as Prometheus would: it
// finds the address the command logged, scrapes /metrics, reads values
// from the text, and runs `promtool check metrics` on it.
package metricstest

import (
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

var served = regexp.MustCompile(`msg="serving metrics".* url=(\S+)`)

// URL waits until p has logged where it serves its metrics.
func URL(t testing.TB, p *zktest.Process) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := served.FindStringSubmatch(p.Stderr()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("never logged where it serves metrics; stderr:\n%s", p.Stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Scrape gets the metrics at url.
func Scrape(t testing.TB, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s, %v", url, resp.Status, err)
	}
	return string(body)
}

// Value is the value of the sample named name (with its labels, as
// `name{op="get"}`), and whether there is one.
func Value(text, name string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// Promtool runs `promtool check metrics` on text and fails t on any
// finding. A missing promtool fails, with how to get it.
func Promtool(t testing.TB, text string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool not found: run make test-tools (it installs Debian's prometheus package)")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// CheckFlag runs bin with args, the word METRICS among them standing for
// a bad --metrics, and then for a --metrics address already taken: the
// first is bad input (one line naming --metrics, status 2), the second one
// line, status 1; neither starts anything, so both end at once.
func CheckFlag(t *testing.T, bin string, args ...string) {
	t.Helper()
	runOnce := func(extra ...string) (string, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var all []string
		for _, a := range args {
			if a == "METRICS" {
				all = append(all, extra...)
			} else {
				all = append(all, a)
			}
		}
		cmd := exec.CommandContext(ctx, bin, all...)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := runOnce("--metrics", "nonsense")
	if code != 2 || strings.Count(out, "\n") != 1 || !strings.Contains(out, `--metrics: "nonsense" is not host:port`) {
		t.Errorf("%s --metrics nonsense: status %d, output %q; want status 2 and one line naming --metrics", bin, code, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, code = runOnce("--metrics", ln.Addr().String())
	want := "cannot serve metrics on --metrics " + ln.Addr().String() + ": bind: address already in use"
	if code != 1 || strings.Count(out, "\n") != 1 || !strings.Contains(out, want) {
		t.Errorf("%s --metrics %s (taken): status %d, output %q; want status 1 and one line %q", bin, ln.Addr(), code, out, want)
	}
}
