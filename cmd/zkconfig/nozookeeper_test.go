package main_test

import (
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

// With no ZooKeeper at the address, set and get say so in one line, exit
// 1; update and watch, which run until stopped, wait for one and say so
// once, not at each try. Ctrl-C then ends them with 0.
func TestNoZooKeeper(t *testing.T) {
	t.Parallel()
	zktest.NoZooKeeperCommands(t, bin,
		[][]string{{"set", "motd", "hi"}, {"get", "motd"}},
		[][]string{{"update", "motd"}, {"update", "--resilient", "motd"}, {"watch", "motd"}})
}
