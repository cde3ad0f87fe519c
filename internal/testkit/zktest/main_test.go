package zktest

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
)

// TestMain fails the package when its tests leave a goroutine running. The
// script tests' servers (demo, demo-tmux, ensemble.sh) run on the test
// servers' light JVM options, as the test servers do.
func TestMain(m *testing.M) {
	os.Setenv("ZK_JAVA_OPTS", LightJVM) //nolint:errcheck // cannot fail for a valid name
	os.Exit(leakcheck.Main(m))
}
