// Package passing is a package whose one test passes, for testrun's test
// of prelinked binaries.
package passing

import (
	"os"
	"path/filepath"
	"testing"
)

// It runs in its own folder, as go test runs a package's tests.
func TestPasses(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil || filepath.Base(wd) != "passing" {
		t.Fatalf("running in %s (%v), not the package's folder", wd, err)
	}
}
