package main_test

import (
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

// With no ZooKeeper at the address, the commands that do one thing and
// exit say so in one line, exit 1; persist, which runs until stopped,
// waits for one and says so once. Ctrl-C then ends it with 0.
func TestNoZooKeeper(t *testing.T) {
	t.Parallel()
	zktest.NoZooKeeperCommands(t, bin,
		[][]string{{"create", "orders"}, {"list"}, {"next", "orders"}, {"delete", "orders"}, {"restore", "--store", t.TempDir()}},
		[][]string{{"persist", "--store", t.TempDir()}})
}
