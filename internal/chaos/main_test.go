package chaos

import (
	"os"
	"path/filepath"
	"testing"

	"zkspeaker/internal/leakcheck"
)

// TestMain fails the package when its tests leave a goroutine running, and
// removes the commands the soaks built.
func TestMain(m *testing.M) {
	code := leakcheck.Main(m)
	builds.Range(func(_, b any) bool {
		if p := b.(*build).path; p != "" {
			_ = os.RemoveAll(filepath.Dir(p))
		}
		return true
	})
	os.Exit(code)
}
