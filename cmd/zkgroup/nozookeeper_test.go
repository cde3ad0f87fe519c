package main_test

import (
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

// With no ZooKeeper at the address, the commands that do one thing and
// exit say so in one line, exit 1; join and list --watch, which run until
// stopped, wait for one and say so once. Ctrl-C then ends them with 0.
func TestNoZooKeeper(t *testing.T) {
	t.Parallel()
	zktest.NoZooKeeperCommands(t, bin,
		[][]string{{"create", "zoo"}, {"list", "zoo"}, {"delete", "zoo"}},
		[][]string{{"join", "zoo", "duck"}, {"list", "--watch", "zoo"}})
}
