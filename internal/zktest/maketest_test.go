package zktest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// `make test` runs for minutes. It must print each package's result as the
// package passes, not after every package listed before it, as a single
// `go test ./...` does. In a module whose first package is slow, the second
// package's ok line comes long before the first one's; and one failing
// package still fails the whole run.
func TestMakeTestPrintsEachPackageAsItPasses(t *testing.T) {
	t.Parallel()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	const slow = 4 * time.Second // how long package a's test sleeps
	mod := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":         "module slowfast\n\ngo 1.22\n",
		"a/slow_test.go": "package a\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(4 * time.Second) }\n",
		"b/fast_test.go": "package b\n\nimport \"testing\"\n\nfunc TestFast(t *testing.T) {}\n",
		"c/fail_test.go": "package c\n\nimport \"testing\"\n\nfunc TestFail(t *testing.T) { t.Fatal(\"failed on purpose\") }\n",
	} {
		path := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "-f", filepath.Join(root, "Makefile"), "test-packages", "JOBS=2")
	cmd.Dir = mod
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	passed := map[string]time.Time{}
	var all []string
	for sc := bufio.NewScanner(out); sc.Scan(); {
		line := sc.Text()
		all = append(all, line)
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "ok" {
			passed[f[1]] = time.Now()
		}
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(strings.Join(all, "\n"), "FAIL\tslowfast/c") {
		t.Errorf("make test-packages with a failing package: %v, want a failure naming it\n%s", err, strings.Join(all, "\n"))
	}
	a, okA := passed["slowfast/a"]
	b, okB := passed["slowfast/b"]
	if !okA || !okB {
		t.Fatalf("want an ok line for each package:\n%s", strings.Join(all, "\n"))
	}
	if early := a.Sub(b); early < slow/2 {
		t.Errorf("the fast package's ok came only %v before the slow one's, want it as soon as it passed:\n%s", early, strings.Join(all, "\n"))
	}
	// Then where the time went: the slowest tests, and the run's total.
	text := strings.Join(all, "\n")
	if !regexp.MustCompile(`(?m)^\s+4\.\ds\s+slowfast/a TestSlow$`).MatchString(text) {
		t.Errorf("want TestSlow among the slowest tests, with its 4 s:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^3 packages, 1 of 3 packages FAILED, in \d+ s$`).MatchString(text) {
		t.Errorf("want a closing line with the packages, the verdict and the total time:\n%s", text)
	}
}
