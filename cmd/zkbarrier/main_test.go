package main

import (
	"os"
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

var (
	// servers is the standalone server TestMain starts (none under -short).
	servers []string
	// bin is the zkbarrier binary TestMain builds.
	bin string
)

// TestMain builds zkbarrier once and starts one real server that the
// tests share, each on a path of its own.
func TestMain(m *testing.M) { os.Exit(zktest.MainCommand(m, &servers, &bin)) }
