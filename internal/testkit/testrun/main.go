// Command testrun runs `go test -json` on each package of a module, a few
// packages at a time, and prints each package's result the moment it ends,
// then where the time went: every package's wall time, the slowest tests
// and the total. A single `go test ./...` prints a package only after those
// listed before it, so a slow first package hides every other result.
//
// Usage:
//
//	testrun [-dir DIR] [-jobs N] [-first REGEXP,...] [-light REGEXP] [-alone REGEXP] [-alone-jobs N] [-alone-parallel N] [-narrow REGEXP] [-narrow-parallel N] [-prepare CMD] [-prelink DIR] [-slowest N] [-log DIR] [-- go test flags]
//	testrun -report DIR
//
// Packages matching -first start before the others, in the order of its
// comma-separated expressions: the longest ones, so
// that the last to end are short and the jobs end together, instead of a
// long package starting last and running by itself. Packages matching
// -light, short unit tests, are tested one at a time in a lane of their
// own beside the others, at a low CPU priority. Packages matching
// -alone run after all the others, -alone-jobs at a time (one unless it
// says more): the soaks, which load the machine, never run beside tests
// that hold real processes to bounds, only beside one another. The
// -prepare command (sh -c) runs from the start, and the -alone packages
// start once it has ended. Packages matching -narrow run only
// -narrow-parallel of their tests at once: the soaks, each of which loads
// the machine by itself. With -prelink, the -alone packages' test
// binaries are linked beforehand, at a low CPU priority. With -log, each package's
// JSON events are kept in DIR, and -report reads them back to print the
// summary again.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"
)

func main() {
	jobs := flag.Int("jobs", runtime.NumCPU(), "packages tested at once")
	first := flag.String("first", "", "packages started before the others, in this order: regular expressions, comma-separated")
	light := flag.String("light", "", "packages (a regular expression) of short unit tests, tested one at a time beside the others at a low CPU priority")
	alone := flag.String("alone", "", "packages (a regular expression) tested after the others, -alone-jobs at a time")
	aloneJobs := flag.Int("alone-jobs", 1, "with -alone: those packages tested at once")
	narrow := flag.String("narrow", "", "packages (a regular expression) whose tests run -narrow-parallel at a time, whatever go test's -parallel")
	narrowN := flag.Int("narrow-parallel", 2, "with -narrow: how many of those packages' tests run at once")
	aloneParallel := flag.Int("alone-parallel", 0, "with -alone: go test's -parallel for those packages (0: the same as the others)")
	slowest := flag.Int("slowest", 20, "how many of the slowest tests to list")
	logDir := flag.String("log", "", "keep each package's go test -json events in this folder")
	report := flag.String("report", "", "print the summary of the events kept in this folder, and run nothing")
	dir := flag.String("dir", ".", "the module folder whose packages to test")
	prelinkDir := flag.String("prelink", "", "link the -alone packages' test binaries into this folder while the others are tested")
	prep := flag.String("prepare", "", "a shell command run from the start, in -dir, that must end before the -alone packages start")
	flag.Parse()
	if *jobs < 1 {
		fail("-jobs: want at least 1, got %d", *jobs)
	}
	if *aloneJobs < 1 {
		fail("-alone-jobs: want at least 1, got %d", *aloneJobs)
	}
	var firstREs []*regexp.Regexp
	if *first != "" {
		for _, expr := range strings.Split(*first, ",") {
			firstREs = append(firstREs, compile("first", expr))
		}
	}
	aloneRE := compile("alone", *alone)
	lightRE := compile("light", *light)
	if *report != "" {
		results, err := readLogs(*report)
		if err != nil {
			fail("-report: %v", err)
		}
		printSummary(os.Stdout, results, 0, *slowest)
		return
	}
	start := time.Now()
	var aloneArgs []string
	if *aloneParallel > 0 {
		aloneArgs = []string{fmt.Sprintf("-parallel=%d", *aloneParallel)}
	}
	results, err := run(runConfig{dir: *dir, jobs: *jobs, first: firstREs, alone: aloneRE, aloneJobs: *aloneJobs, aloneArgs: aloneArgs, logDir: *logDir, testFlags: flag.Args(), prepare: *prep, prelink: *prelinkDir, light: lightRE, narrow: compile("narrow", *narrow), narrowN: *narrowN})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(1)
	}
	printSummary(os.Stdout, results, time.Since(start), *slowest)
	for _, r := range results {
		if !r.passed {
			os.Exit(1)
		}
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "testrun: "+format+"\n", args...)
	os.Exit(2)
}

// compile is the regular expression of the flag name, nil when empty.
func compile(name, expr string) *regexp.Regexp {
	if expr == "" {
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		fail("-%s: %v", name, err)
	}
	return re
}
