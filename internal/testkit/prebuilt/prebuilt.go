// Package prebuilt finds the commands that `make test` built once for the
// whole run, so that no test binary links them again. Each link of a
// command costs about 2.5 s of CPU, and the suite's test binaries asked for
// some forty: a quarter of the suite's CPU on two cores, spent while the
// fault tests hold processes to bounds.
//
// make test builds cmd/<name> into one folder (and race-enabled builds into
// its race/ folder) just before the tests, and names it in ZKTEST_BIN.
// Without ZKTEST_BIN (go test run by hand), nothing is prebuilt and each
// test binary builds what it needs, as before.
package prebuilt

import (
	"os"
	"path/filepath"
)

// Env names the folder of the commands make test built.
const Env = "ZKTEST_BIN"

// Dir returns the folder of the prebuilt commands, and whether there is
// one.
func Dir() (string, bool) {
	dir := os.Getenv(Env)
	if dir == "" {
		return "", false
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// Command returns the path of cmd/<name> as make test built it, race
// enabled or not, and whether it is there.
func Command(name string, race bool) (string, bool) {
	dir, ok := Dir()
	if !ok {
		return "", false
	}
	if race {
		dir = filepath.Join(dir, "race")
	}
	p := filepath.Join(dir, name)
	st, err := os.Stat(p)
	return p, err == nil && st.Mode().IsRegular()
}

// Commands returns the prebuilt folder when it holds every one of names
// (plain builds), so that a test can use the folder as bin/.
func Commands(names ...string) (string, bool) {
	dir, ok := Dir()
	if !ok {
		return "", false
	}
	for _, n := range names {
		if _, ok := Command(n, false); !ok {
			return "", false
		}
	}
	return dir, true
}
