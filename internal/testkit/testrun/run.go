package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// result is what one package's run came to.
type result struct {
	pkg    string
	passed bool
	wall   time.Duration      // from starting go test to its exit, build included
	cpu    time.Duration      // user and system time of go test and what it waited for: the test binary, and the servers and commands the tests reaped
	tests  map[string]float64 // top-level and sub-tests: seconds each
	spans  map[string]*span   // top-level tests: from their start to their last subtest's end
	failed []string           // the tests that failed, in order
	output map[string]*strings.Builder
	stray  strings.Builder // output outside any test: build errors, panics, FAIL lines
}

type runConfig struct {
	dir       string // the module's folder
	jobs      int
	first     []*regexp.Regexp // started before the others, in this order
	alone     *regexp.Regexp
	aloneJobs int      // the alone packages tested at once
	aloneArgs []string // go test flags for the alone packages, after testFlags
	logDir    string
	testFlags []string
	prepare   string // a shell command that must end before the alone packages start
	prelink   string // a folder for the alone packages' test binaries, linked beforehand
	linked    *prelinked
	light     *regexp.Regexp // tested in a lane of their own beside the others, at nice lightNice
	nice      int            // the CPU priority of go test and what it starts (0: as testrun's)
	narrow    *regexp.Regexp // packages whose tests run narrowParallel at a time
	narrowN   int
}

// lightNice is the light lane's CPU priority: its unit tests take the CPU
// that the other packages' waiting tests leave idle, and yield it at once
// when a test holding a process to a bound wakes.
const lightNice = 10

// run tests every package of the module in the current folder and prints a
// line for each as it ends: those matching alone last, aloneJobs at a time.
func run(cfg runConfig) ([]*result, error) {
	pkgs, err := listPackages(cfg.dir)
	if err != nil {
		return nil, err
	}
	if cfg.logDir != "" {
		if err := os.MkdirAll(cfg.logDir, 0o755); err != nil {
			return nil, err
		}
	}
	together, last := split(pkgs, cfg.alone)
	together, light := split(together, cfg.light)
	together = firstOf(together, cfg.first)
	var mu sync.Mutex // orders the printing
	prep := prepare(cfg.dir, cfg.prepare)
	linked := make(chan *prelinked, 1)
	go func() { linked <- prelinkOrSay(cfg, last, &mu) }()
	// The alone packages start once the last of the others has started,
	// not ended: the last ones are short, and two jobs waiting on them
	// left the cores half idle at the turn.
	drained := make(chan struct{})
	others := make(chan []*result, 1)
	go func() { others <- runAll(cfg, together, cfg.jobs, &mu, drained) }()
	lightCfg := cfg
	lightCfg.nice = lightNice
	lit := make(chan []*result, 1)
	go func() { lit <- runAll(lightCfg, light, 1, &mu, nil) }()
	lightResults := <-lit
	<-drained
	prep.wait(os.Stdout, &mu)
	alone := cfg
	alone.testFlags = append(append([]string(nil), cfg.testFlags...), cfg.aloneArgs...)
	alone.linked = <-linked
	lastResults := runAll(alone, last, max(cfg.aloneJobs, 1), &mu, nil)
	return append(append(<-others, lightResults...), lastResults...), nil
}

// split parts pkgs into those re does not match and those it matches,
// each in its order; a nil re matches none.
func split(pkgs []string, re *regexp.Regexp) (unmatched, matched []string) {
	for _, p := range pkgs {
		if re != nil && re.MatchString(p) {
			matched = append(matched, p)
		} else {
			unmatched = append(unmatched, p)
		}
	}
	return unmatched, matched
}

// firstOf puts the packages the expressions match first, those of the
// first expression before those of the second and so on, then the others;
// go list's order stays within each part.
func firstOf(pkgs []string, res []*regexp.Regexp) []string {
	var first []string
	rest := pkgs
	for _, re := range res {
		var matched []string
		rest, matched = split(rest, re)
		first = append(first, matched...)
	}
	return append(first, rest...)
}

func listPackages(dir string) ([]string, error) {
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("go list: %s", bytes.TrimSpace(ee.Stderr))
		}
		return nil, fmt.Errorf("go list: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// runAll tests pkgs, jobs at a time, printing each as it ends. It closes
// drained, unless nil, once the last package has started.
func runAll(cfg runConfig, pkgs []string, jobs int, mu *sync.Mutex, drained chan<- struct{}) []*result {
	results := make([]*result, len(pkgs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := testPackage(cfg, pkgs[i])
				mu.Lock()
				printResult(os.Stdout, r)
				mu.Unlock()
				results[i] = r
			}
		}()
	}
	for i := range pkgs {
		next <- i
	}
	close(next)
	if drained != nil {
		close(drained)
	}
	wg.Wait()
	return results
}

// testPackage runs go test -json on one package and reads its events.
func testPackage(cfg runConfig, pkg string) *result {
	extra, testFlags := cfg.flagsFor(pkg)
	cmd := cfg.linked.command(pkg, extra)
	if cmd == nil {
		args := append(append([]string{"go", "test", "-json"}, testFlags...), pkg)
		if cfg.nice != 0 {
			args = append([]string{"nice", "-n", strconv.Itoa(cfg.nice)}, args...)
		}
		cmd = exec.Command(args[0], args[1:]...)
		cmd.Dir = cfg.dir
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	r := &result{pkg: pkg}
	if err != nil {
		r.stray.WriteString(err.Error())
		return r
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		r.stray.WriteString(err.Error())
		return r
	}
	var events io.Reader = stdout
	var logFile *os.File
	if cfg.logDir != "" {
		name := filepath.Join(cfg.logDir, strings.ReplaceAll(pkg, "/", "_")+".json")
		if f, err := os.Create(name); err == nil {
			logFile = f
			events = io.TeeReader(stdout, f)
		}
	}
	readEvents(r, events)
	err = cmd.Wait()
	r.wall = time.Since(start)
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	if logFile != nil {
		logFile.Close()
	}
	r.stray.Write(stderr.Bytes())
	r.passed = err == nil && len(r.failed) == 0
	return r
}

// flagsFor is the flags pkg is tested with: -alone's extra ones and go
// test's, each ending with -narrow's -parallel when pkg matches it.
func (cfg runConfig) flagsFor(pkg string) (extra, testFlags []string) {
	extra, testFlags = cfg.aloneArgs, cfg.testFlags
	if cfg.narrow != nil && cfg.narrow.MatchString(pkg) {
		n := fmt.Sprintf("-parallel=%d", max(cfg.narrowN, 1))
		extra = append(slices.Clone(extra), n)
		testFlags = append(slices.Clone(testFlags), n)
	}
	return extra, testFlags
}

// readEvents fills r from a stream of go test -json events.
func readEvents(r *result, in io.Reader) {
	r.tests = map[string]float64{}
	r.spans = map[string]*span{}
	r.output = map[string]*strings.Builder{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			r.stray.Write(sc.Bytes())
			r.stray.WriteByte('\n')
			continue
		}
		if r.pkg == "" {
			r.pkg = e.Package
		}
		if e.Test != "" {
			r.stretch(e)
		}
		switch {
		case e.Action == "output" && e.Test != "":
			b := r.output[e.Test]
			if b == nil {
				b = &strings.Builder{}
				r.output[e.Test] = b
			}
			b.WriteString(e.Output)
		case e.Action == "output" || e.Action == "build-output":
			r.stray.WriteString(e.Output)
		case (e.Action == "pass" || e.Action == "fail") && e.Test != "":
			r.tests[e.Test] = e.Elapsed
			if e.Action == "fail" {
				r.failed = append(r.failed, e.Test)
			}
		case e.Action == "pass" || e.Action == "fail":
			if r.wall == 0 {
				r.wall = time.Duration(e.Elapsed * float64(time.Second))
			}
		}
	}
}

// span is the stretch of time a top-level test occupied: from when it ran
// (or resumed, for a parallel one) to when the last of its subtests ended.
// A parent of parallel subtests reports only its own few milliseconds;
// its span is what it cost.
type span struct{ start, end time.Time }

// stretch widens the span of e's top-level test by e.
func (r *result) stretch(e event) {
	top, _, _ := strings.Cut(e.Test, "/")
	sp := r.spans[top]
	if sp == nil {
		sp = &span{start: e.Time, end: e.Time}
		r.spans[top] = sp
	}
	if e.Test == top && e.Action == "cont" {
		sp.start = e.Time // it waited, paused, until here
	}
	if e.Time.After(sp.end) {
		sp.end = e.Time
	}
}
