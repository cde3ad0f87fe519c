// Package passing is a package whose one test passes, for testrun's tests
// of how it runs a package.
package passing

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// It runs in its own folder, as go test runs a package's tests, and at the
// CPU priority TESTRUN_WANT_NICE names, when it names one.
func TestPasses(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil || filepath.Base(wd) != "passing" {
		t.Fatalf("running in %s (%v), not the package's folder", wd, err)
	}
	if want := os.Getenv("TESTRUN_WANT_NICE"); want != "" {
		// getpriority's raw answer is 20 - nice (see getpriority(2)).
		prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
		if err != nil || strconv.Itoa(20-prio) != want {
			t.Fatalf("running at nice %d (%v), want %s", 20-prio, err, want)
		}
	}
}
