package chaos

import (
	"os"
	"path/filepath"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
	"zkspeaker/internal/testkit/zktest"
)

// TestMain fails the package when its tests leave a goroutine running, and
// removes the commands the soaks built. The soaks' servers run on the test
// servers' light JVM options: eight soaks start theirs at once.
func TestMain(m *testing.M) {
	os.Setenv("ZK_JAVA_OPTS", zktest.LightJVM) //nolint:errcheck // cannot fail for a valid name
	code := leakcheck.Main(m)
	builds.Range(func(_, b any) bool {
		if p := b.(*build).path; p != "" {
			_ = os.RemoveAll(filepath.Dir(p))
		}
		return true
	})
	os.Exit(code)
}
