// Command sizecheck fails when the repository's files outgrow the sizes the
// project keeps to: a file git would hold over 1 MB (a binary built at the
// root and taken in by mistake), a Go source file over 350 lines, or a Go
// function over 80 lines. Test files are held to the byte limit only.
//
// It reads the files git lists in -dir: those tracked, and those not yet
// tracked that .gitignore lets through, so that a file is caught before
// it is committed, not after. It prints one line an offender and exits 1,
// or prints nothing and exits 0.
//
// Usage:
//
//	sizecheck [-dir DIR] [-max-bytes N] [-max-file-lines N] [-max-func-lines N]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	dir := flag.String("dir", ".", "the repository folder to check")
	lim := defaultLimits()
	flag.Int64Var(&lim.maxBytes, "max-bytes", lim.maxBytes, "the largest size of any file, in bytes")
	flag.IntVar(&lim.maxFileLines, "max-file-lines", lim.maxFileLines, "the most lines of a non-test Go file")
	flag.IntVar(&lim.maxFuncLines, "max-func-lines", lim.maxFuncLines, "the most lines of a non-test Go function")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "sizecheck: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	os.Exit(run(*dir, lim, os.Stdout, os.Stderr))
}

// run checks the files git lists in dir and reports the offenders to out.
// It returns the exit status: 0 when all fit, 1 when some do not, 2 when
// the check itself could not be made.
func run(dir string, lim limits, out, errOut io.Writer) int {
	paths, err := gitFiles(dir)
	if err != nil {
		fmt.Fprintf(errOut, "sizecheck: %v\n", err)
		return 2
	}
	findings, err := check(dir, paths, lim)
	if err != nil {
		fmt.Fprintf(errOut, "sizecheck: %v\n", err)
		return 2
	}
	for _, f := range findings {
		fmt.Fprintln(out, f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(out, "sizecheck: %d file(s) or function(s) over the limits\n", len(findings))
		return 1
	}
	return 0
}

// gitFiles lists the files of the repository at dir, relative to dir: the
// tracked ones and the untracked ones that are not ignored.
func gitFiles(dir string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %v: %s", dir, err, strings.TrimSpace(stderr.String()))
	}
	seen := make(map[string]bool)
	var paths []string
	for _, p := range strings.Split(string(raw), "\x00") {
		// A file in conflict is listed once per stage.
		if p != "" && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	// git lists the untracked after the tracked; a reader looks by path.
	slices.Sort(paths)
	return paths, nil
}
