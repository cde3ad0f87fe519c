package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// printResult prints one package's line, as go test does, and under a
// failure the output of each failed test and whatever came outside tests.
func printResult(w io.Writer, r *result) {
	if r.passed {
		fmt.Fprintf(w, "ok  \t%s\t%.1fs\n", r.pkg, r.wall.Seconds())
		return
	}
	for _, name := range r.failed {
		if b := r.output[name]; b != nil && !hasFailedChild(r, name) {
			fmt.Fprint(w, b.String())
		}
	}
	if s := strings.TrimSpace(r.stray.String()); s != "" {
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "FAIL\t%s\t%.1fs\n", r.pkg, r.wall.Seconds())
}

// hasFailedChild says whether a subtest of name failed too: its output
// then holds the detail, and the parent's would repeat the headers only.
func hasFailedChild(r *result, name string) bool {
	for _, f := range r.failed {
		if strings.HasPrefix(f, name+"/") {
			return true
		}
	}
	return false
}

// printSummary prints every package's time, slowest first, the slowest
// top-level tests and, when total is known, the wall time of the run.
func printSummary(w io.Writer, results []*result, total time.Duration, slowest int) {
	sorted := append([]*result(nil), results...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].wall > sorted[j].wall })
	var cpu time.Duration
	for _, r := range sorted {
		cpu += r.cpu
	}
	if cpu > 0 {
		// The machine is CPU-bound while the tests run: a cut that only
		// moves waiting around saves nothing, one that saves CPU does.
		fmt.Fprintln(w, "\npackages by wall time (build included), and the CPU time of each with what it reaped:")
	} else {
		fmt.Fprintln(w, "\npackages by wall time (build included):")
	}
	for _, r := range sorted {
		mark := ""
		if !r.passed {
			mark = "  FAIL"
		}
		if cpu > 0 {
			fmt.Fprintf(w, "  %7.1fs  cpu %6.1fs  %s%s\n", r.wall.Seconds(), r.cpu.Seconds(), r.pkg, mark)
		} else {
			fmt.Fprintf(w, "  %7.1fs  %s%s\n", r.wall.Seconds(), r.pkg, mark)
		}
	}
	type test struct {
		pkg, name string
		secs      float64
	}
	var tests []test
	for _, r := range results {
		for name, sp := range r.spans {
			tests = append(tests, test{r.pkg, name, sp.end.Sub(sp.start).Seconds()})
		}
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].secs > tests[j].secs })
	if len(tests) > slowest {
		tests = tests[:slowest]
	}
	fmt.Fprintf(w, "\nthe %d slowest tests, subtests included (a parallel test counts from when it resumed):\n", len(tests))
	for _, t := range tests {
		fmt.Fprintf(w, "  %7.1fs  %s %s\n", t.secs, strings.TrimPrefix(t.pkg, "zkspeaker/"), t.name)
	}
	failed := 0
	for _, r := range results {
		if !r.passed {
			failed++
		}
	}
	printWhy(w, results)
	verdict := "all passed"
	if failed > 0 {
		verdict = fmt.Sprintf("%d of %d packages FAILED", failed, len(results))
	}
	if total > 0 && cpu > 0 {
		fmt.Fprintf(w, "\n%d packages, %s, in %.0f s, using %.0f s of CPU\n", len(results), verdict, total.Seconds(), cpu.Seconds())
	} else if total > 0 {
		fmt.Fprintf(w, "\n%d packages, %s, in %.0f s\n", len(results), verdict, total.Seconds())
	} else {
		fmt.Fprintf(w, "\n%d packages, %s\n", len(results), verdict)
	}
}

// readLogs reads the events that -log kept, one file per package.
func readLogs(dir string) ([]*result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .json files in %s", dir)
	}
	var results []*result
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		r := &result{}
		readEvents(r, f)
		f.Close()
		r.passed = len(r.failed) == 0
		results = append(results, r)
	}
	return results, nil
}
