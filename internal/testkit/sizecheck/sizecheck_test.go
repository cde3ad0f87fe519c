package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fn is the source of a function of exactly lines lines.
func fn(header string, lines int) string {
	return header + " {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
}

// goFile is a Go file of package p holding funcs, padded with comment
// lines to exactly lines lines.
func goFile(t *testing.T, lines int, funcs ...string) string {
	t.Helper()
	src := "package p\n" + strings.Join(funcs, "")
	pad := lines - lineCount([]byte(src))
	if pad < 0 {
		t.Fatalf("the functions take %d lines more than the file's %d", -pad, lines)
	}
	return src + strings.Repeat("// padding\n", pad)
}

// repo makes a git repository in a temporary folder holding files, each
// tracked except those named in untracked.
func repo(t *testing.T, files map[string]string, untracked ...string) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for name, content := range files {
		full := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(untracked, name) {
			git("add", "-f", name)
		}
	}
	return dir
}

// sizecheck runs the check on dir with the project's limits.
func sizecheck(t *testing.T, dir string) (status int, report []string, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = run(dir, defaultLimits(), &out, &errOut)
	report = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if out.Len() == 0 {
		report = nil
	}
	return status, report, errOut.String()
}

func TestReportsEachOffenderByName(t *testing.T) {
	big := strings.Repeat("x", 1_000_001)
	dir := repo(t, map[string]string{
		"a/long.go": goFile(t, 340,
			fn("func Fits()", 80),
			fn("func TooLong()", 81),
			fn("func (g *Gen[K]) Method()", 90),
			"var hook = "+fn("func()", 85)),
		"a/big.go":       goFile(t, 351),
		"a/edge.go":      goFile(t, 350, fn("func Edge()", 80)),
		"a/big_test.go":  goFile(t, 400, fn("func testHelper()", 120)),
		"zkview":         big,
		"new.bin":        big,
		"ignored.bin":    big,
		".gitignore":     "/ignored.bin\n",
		"exactly-1mb.db": strings.Repeat("x", 1_000_000),
	}, "new.bin", "ignored.bin")

	status, report, stderr := sizecheck(t, dir)
	want := []string{
		"a/big.go: 351 lines, over 350",
		"a/long.go:82: func TooLong is 81 lines, over 80",
		"a/long.go:163: func (*Gen).Method is 90 lines, over 80",
		"a/long.go:253: func literal is 85 lines, over 80",
		"new.bin: 1000001 bytes, over 1000000",
		"zkview: 1000001 bytes, over 1000000",
		"sizecheck: 6 file(s) or function(s) over the limits",
	}
	if status != 1 || !slices.Equal(report, want) || stderr != "" {
		t.Errorf("status %d, stderr %q, report:\n%s\nwant status 1, report:\n%s",
			status, stderr, strings.Join(report, "\n"), strings.Join(want, "\n"))
	}
}

func TestFilesThatFitPassSilently(t *testing.T) {
	dir := repo(t, map[string]string{
		"ok.go":      goFile(t, 350, fn("func Fits()", 80)),
		"ok_test.go": goFile(t, 1000, fn("func TestLong(t *testing.T)", 500)),
		"data.txt":   strings.Repeat("x", 1_000_000),
	})
	if status, report, stderr := sizecheck(t, dir); status != 0 || report != nil || stderr != "" {
		t.Errorf("status %d, report %q, stderr %q; want 0 and no output", status, report, stderr)
	}
}

func TestDeletedTrackedFileIsSkipped(t *testing.T) {
	dir := repo(t, map[string]string{"gone.go": goFile(t, 400)})
	if err := os.Remove(filepath.Join(dir, "gone.go")); err != nil {
		t.Fatal(err)
	}
	if status, report, stderr := sizecheck(t, dir); status != 0 || report != nil || stderr != "" {
		t.Errorf("status %d, report %q, stderr %q; want 0 and no output", status, report, stderr)
	}
}

func TestUnparsableGoFileIsAnError(t *testing.T) {
	dir := repo(t, map[string]string{"broken.go": "package p\nfunc {\n"})
	status, report, stderr := sizecheck(t, dir)
	if status != 2 || report != nil || !strings.Contains(stderr, "broken.go") {
		t.Errorf("status %d, report %q, stderr %q; want 2 and an error naming broken.go", status, report, stderr)
	}
}

func TestOutsideARepositoryIsAnError(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	status, _, stderr := sizecheck(t, dir)
	if status != 2 || !strings.Contains(stderr, "git ls-files") {
		t.Errorf("status %d, stderr %q; want 2 and git's error", status, stderr)
	}
}
