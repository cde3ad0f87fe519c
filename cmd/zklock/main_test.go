package main

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

var (
	// servers is the standalone server TestMain starts (none under -short).
	servers []string
	// bin is the zklock binary TestMain builds.
	bin string
)

// TestMain builds zklock once, starts one real server that the tests
// share, each on a lock path of its own (their faults are on processes
// and proxies, never on the server), and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { os.Exit(zktest.MainCommand(m, &servers, &bin)) }

// zklockBin is the zklock that TestMain built.
func zklockBin(t *testing.T) string {
	t.Helper()
	return bin
}
