package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
)

// TestMain fails the package when its tests leave a goroutine running.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// zklockBin builds this command once per test binary.
func zklockBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zklock-test-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "zklock")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("go build zklock: %v", buildErr)
	}
	return binPath
}
