package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// prelinked holds the alone packages' test binaries, linked while the
// others were tested: at the turn, twenty go test processes each linked a
// race-enabled binary (1 to 2.5 s of CPU apiece) beside twenty starting
// soaks, and the last three packages started 10 to 27 s late.
type prelinked struct {
	bins map[string]string // package -> its test binary
	dirs map[string]string // package -> its folder, where the binary runs
	run  []string          // the go test run flags, as the binary takes them
}

// buildFlags are the go test flags that shape the binary; the others are
// the binary's own, -test.NAME.
var buildFlags = map[string]bool{"race": true, "vet": true, "tags": true, "gcflags": true}

// valueFlags are the run flags that take a value, which may be the next
// argument.
var valueFlags = map[string]bool{"count": true, "timeout": true, "parallel": true, "run": true, "skip": true, "cpu": true}

// boolFlags are the run flags that stand alone or take =true/false.
var boolFlags = map[string]bool{"short": true, "v": true, "failfast": true}

// splitFlags parts go test's flags into those of the build and those of
// the binary (renamed -test.NAME). ok is false for a flag it does not
// know: then the packages are tested by go test, as without prelinking.
func splitFlags(flags []string) (build, run []string, ok bool) {
	for i := 0; i < len(flags); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		switch {
		case !strings.HasPrefix(flags[i], "-"):
			return nil, nil, false
		case buildFlags[name]:
			build = append(build, flags[i])
		case valueFlags[name] && hasValue:
			run = append(run, "-test."+name+"="+value)
		case valueFlags[name] && i+1 < len(flags):
			i++
			run = append(run, "-test."+name+"="+flags[i])
		case boolFlags[name]:
			run = append(run, "-test."+strings.TrimLeft(flags[i], "-"))
		default:
			return nil, nil, false
		}
	}
	return build, run, true
}

// prelink links the test binary of each of pkgs into dir, one at a time,
// at the CPU priority nice (lightNice beside the tests: above the
// linters' 19, which would starve it until the soaks are due). A package that has no tests, or whose link
// fails, is left to go test, which reports it as it would anyway.
func prelink(moduleDir, dir string, pkgs, testFlags []string, nice int) (*prelinked, error) {
	build, run, ok := splitFlags(testFlags)
	if !ok || len(pkgs) == 0 {
		return &prelinked{}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dirs, err := packageDirs(moduleDir, pkgs)
	if err != nil {
		return nil, err
	}
	p := &prelinked{bins: map[string]string{}, dirs: dirs, run: run}
	for _, pkg := range pkgs {
		bin := filepath.Join(dir, strings.ReplaceAll(pkg, "/", "_")+".test")
		args := append(append([]string{"-n", strconv.Itoa(nice), "go", "test", "-c", "-o", bin}, build...), pkg)
		cmd := exec.Command("nice", args...)
		cmd.Dir = moduleDir
		if out, err := cmd.CombinedOutput(); err != nil {
			return p, fmt.Errorf("link %s: %v\n%s", pkg, err, out)
		}
		if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
			p.bins[pkg] = bin
		}
	}
	return p, nil
}

// prelinkOrSay prelinks pkgs when cfg asks for it, and says under mu why
// it could not: those packages are then tested by go test.
func prelinkOrSay(cfg runConfig, pkgs []string, mu *sync.Mutex) *prelinked {
	if cfg.prelink == "" {
		return nil
	}
	p, err := prelink(cfg.dir, cfg.prelink, pkgs, cfg.testFlags, lightNice)
	if err != nil {
		mu.Lock()
		fmt.Println("testrun: -prelink:", err)
		mu.Unlock()
	}
	return p
}

// packageDirs maps each of pkgs to its folder.
func packageDirs(moduleDir string, pkgs []string) (map[string]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}\t{{.Dir}}"}, pkgs...)...)
	cmd.Dir = moduleDir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	dirs := map[string]string{}
	for _, line := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		if pkg, d, ok := strings.Cut(line, "\t"); ok {
			dirs[pkg] = d
		}
	}
	return dirs, nil
}

// command is how pkg is tested: its prelinked binary through test2json,
// in its folder as go test runs it, or nil when it has none.
func (p *prelinked) command(pkg string, extra []string) *exec.Cmd {
	if p == nil || p.bins[pkg] == "" {
		return nil
	}
	_, run, ok := splitFlags(extra)
	if !ok {
		return nil
	}
	args := append([]string{"tool", "test2json", "-t", "-p", pkg, p.bins[pkg], "-test.v=test2json"}, p.run...)
	cmd := exec.Command("go", append(args, run...)...)
	cmd.Dir = p.dirs[pkg]
	return cmd
}
