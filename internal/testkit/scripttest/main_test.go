// Package scripttest holds the repository's script tests: make demo's and
// make demo-tmux's scripts, ensemble.sh, and make test itself, run as a
// user runs them, against real ZooKeeper servers.
package scripttest

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
	"zkspeaker/internal/testkit/zktest"
)

// TestMain fails the package when its tests leave a goroutine running. The
// scripts' servers run on the test servers' light JVM options.
func TestMain(m *testing.M) {
	os.Setenv("ZK_JAVA_OPTS", zktest.LightJVM) //nolint:errcheck // cannot fail for a valid name
	os.Exit(leakcheck.Main(m))
}
