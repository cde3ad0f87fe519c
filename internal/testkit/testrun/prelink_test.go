package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// go test's flags part into the build's and the binary's, in both of
// go test's forms; an unknown flag leaves the packages to go test.
func TestSplitFlags(t *testing.T) {
	t.Parallel()
	build, run, ok := splitFlags([]string{"-race", "-vet=off", "-count=1", "-timeout", "20m", "-parallel", "6", "-short", "-run=X"})
	if !ok || !slices.Equal(build, []string{"-race", "-vet=off"}) ||
		!slices.Equal(run, []string{"-test.count=1", "-test.timeout=20m", "-test.parallel=6", "-test.short", "-test.run=X"}) {
		t.Errorf("splitFlags = %q, %q, %v", build, run, ok)
	}
	for _, flags := range [][]string{{"-coverprofile=c.out"}, {"-count=1", "stray"}} {
		if _, _, ok := splitFlags(flags); ok {
			t.Errorf("splitFlags(%q) took flags it does not know", flags)
		}
	}
}

// A prelinked package runs as go test would run it, through test2json in
// its folder, with -alone's flags after the others; its events read as go
// test -json's.
func TestAPrelinkedPackageRunsItsBinary(t *testing.T) {
	t.Parallel()
	const pkg = "zkspeaker/internal/testkit/testrun/testdata/passing"
	p, err := prelink("../../..", t.TempDir(), []string{pkg}, []string{"-count=1", "-timeout", "1m", "-parallel", "6"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := p.command(pkg, []string{"-parallel=12"})
	if cmd == nil {
		t.Fatalf("no binary for %s: %v", pkg, p.bins)
	}
	if got := strings.Join(cmd.Args, " "); !strings.HasSuffix(got, "-test.v=test2json -test.count=1 -test.timeout=1m -test.parallel=6 -test.parallel=12") ||
		!strings.HasSuffix(cmd.Dir, "testdata/passing") {
		t.Errorf("command %q in %s", got, cmd.Dir)
	}
	r := testPackage(runConfig{dir: "../../..", linked: p, aloneArgs: []string{"-parallel=12"}}, pkg)
	if !r.passed || len(r.tests) != 1 || r.pkg != pkg {
		t.Errorf("result: passed %v, package %s, tests %v, stray %q", r.passed, r.pkg, r.tests, r.stray.String())
	}
	if p.command("zkspeaker/other", nil) != nil {
		t.Error("a package not prelinked got a command")
	}
}

// A light package's go test, and the tests it runs, run lightNice lower
// than testrun (which make test may itself run in the light lane).
func TestALightPackageRunsNiced(t *testing.T) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESTRUN_WANT_NICE", strconv.Itoa(min(20-prio+lightNice, 19))) // getpriority(2): 20 - nice
	const pkg = "zkspeaker/internal/testkit/testrun/testdata/passing"
	r := testPackage(runConfig{dir: "../../..", nice: lightNice, testFlags: []string{"-count=1"}}, pkg)
	if !r.passed || len(r.tests) != 1 {
		t.Errorf("result: passed %v, tests %v, output %v, stray %q", r.passed, r.tests, r.output["TestPasses"], r.stray.String())
	}
}

// A narrow package's tests run -narrow-parallel at a time, whatever the
// -parallel before; the others keep theirs.
func TestANarrowPackageRunsFewTestsAtOnce(t *testing.T) {
	t.Parallel()
	cfg := runConfig{testFlags: []string{"-parallel", "6"}, aloneArgs: []string{"-parallel=12"}, narrow: regexp.MustCompile(`/chaos/`), narrowN: 1}
	extra, flags := cfg.flagsFor("m/chaos/lock")
	if !slices.Equal(extra, []string{"-parallel=12", "-parallel=1"}) || !slices.Equal(flags, []string{"-parallel", "6", "-parallel=1"}) {
		t.Errorf("narrow: %q, %q", extra, flags)
	}
	if extra, flags := cfg.flagsFor("m/recipes/lock"); !slices.Equal(extra, cfg.aloneArgs) || !slices.Equal(flags, cfg.testFlags) {
		t.Errorf("not narrow: %q, %q", extra, flags)
	}
}
