package scripttest

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

	"zkspeaker/internal/testkit/zktest"
)

// `make test` runs for minutes. It must print each package's result as the
// package passes, not after every package listed before it, as a single
// `go test ./...` does. In a module whose first package is slow, the second
// package's ok line comes long before the first one's; and one failing
// package still fails the whole run.
func TestMakeTestPrintsEachPackageAsItPasses(t *testing.T) {
	t.Parallel()
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// Package a's test ends only once the fast package's ok line has been
	// printed (it waits for a file that this test creates then), or after a
	// minute: a runner that held b's line back until a ended shows it late,
	// whatever the machine's load.
	mod := t.TempDir()
	release := filepath.Join(t.TempDir(), "release")
	for name, text := range map[string]string{
		"go.mod": "module slowfast\n\ngo 1.22\n",
		"a/slow_test.go": "package a\n\nimport (\n\t\"os\"\n\t\"testing\"\n\t\"time\"\n)\n\n" +
			"func TestSlow(t *testing.T) {\n\tfor end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {\n" +
			"\t\tif _, err := os.Stat(os.Getenv(\"SLOWFAST_RELEASE\")); err == nil {\n\t\t\treturn\n\t\t}\n\t}\n}\n",
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
	// SKIP_COMPILE: compile-tests builds this repository's commands, which
	// the module lacks; make test skips it the same way (it compiled first).
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "-f", filepath.Join(root, "Makefile"), "test-packages", "JOBS=2", "SKIP_COMPILE=1")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "SLOWFAST_RELEASE="+release)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var all []string
	released, aAfterB := false, false
	for sc := bufio.NewScanner(out); sc.Scan(); {
		line := sc.Text()
		all = append(all, line)
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "ok" {
			continue
		}
		switch f[1] {
		case "slowfast/b":
			if err := os.WriteFile(release, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			released = true
		case "slowfast/a":
			aAfterB = released
		}
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(strings.Join(all, "\n"), "FAIL\tslowfast/c") {
		t.Errorf("make test-packages with a failing package: %v, want a failure naming it\n%s", err, strings.Join(all, "\n"))
	}
	if !released || !aAfterB {
		t.Errorf("want the fast package's ok line while the slow one still ran, then the slow one's:\n%s", strings.Join(all, "\n"))
	}
	// Then where the time went: each package's wall and CPU time, the
	// slowest tests, and the run's total.
	text := strings.Join(all, "\n")
	if !regexp.MustCompile(`(?m)^\s+[\d.]+s\s+cpu\s+[\d.]+s\s+slowfast/c  FAIL$`).MatchString(text) {
		t.Errorf("want each package's wall and CPU time, the failed one marked:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^\s+[\d.]+s\s+slowfast/a TestSlow$`).MatchString(text) {
		t.Errorf("want TestSlow among the slowest tests:\n%s", text)
	}
	if !regexp.MustCompile(`(?m)^3 packages, 1 of 3 packages FAILED, in \d+ s, using \d+ s of CPU$`).MatchString(text) {
		t.Errorf("want a closing line with the packages, the verdict, the total time and the CPU used:\n%s", text)
	}
}

// `make demo` installs what the demo runs and nothing more: ZooKeeper (and
// Java). The test tools, chromium above all, are make test's to install:
// on a fresh machine they more than doubled the demo's first run. make -n
// prints every command a target would run, installs included.
func TestMakeDemoInstallsOnlyWhatTheDemoNeeds(t *testing.T) {
	t.Parallel()
	root, err := zktest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	plan := func(target string) string {
		out, err := exec.Command("make", "-n", "-C", root, target).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		return string(out)
	}
	demo := plan("demo")
	if !strings.Contains(demo, "install-zookeeper.sh") {
		t.Errorf("make demo does not install ZooKeeper:\n%s", demo)
	}
	for _, tool := range []string{"chromium", "shellcheck", "tmux", "promtool", "kazoo"} {
		if strings.Contains(demo, tool) {
			t.Errorf("make demo would install %s, which only the tests need:\n%s", tool, demo)
		}
		if !strings.Contains(plan("test"), tool) {
			t.Errorf("make test does not install %s, which its tests need", tool)
		}
	}
	if tmux := plan("demo-tmux"); !strings.Contains(tmux, "tmux") || strings.Contains(tmux, "chromium") {
		t.Errorf("make demo-tmux should install tmux and not chromium:\n%s", tmux)
	}
}
