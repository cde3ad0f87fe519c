package main_test

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

// TestMain starts the package's shared server (zktest.Shared) and fails
// the package when its tests leave a goroutine running.
func TestMain(m *testing.M) {
	var servers []string
	os.Exit(zktest.Main(m, &servers))
}
