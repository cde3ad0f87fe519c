package zksession_test

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

// servers is the standalone ZooKeeper server that TestMain starts.
var servers []string

// TestMain starts that server and fails the package when its tests leave a
// goroutine running (zktest.Main).
func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &servers))
}
