package broadcast

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
)

// TestMain fails the package when its tests leave a goroutine running.
func TestMain(m *testing.M) { os.Exit(leakcheck.Main(m)) }
