package main

import (
	"testing"

	"zkspeaker/internal/testkit/zktest"
)

// With no ZooKeeper at the address, set and remove say so in one line and
// exit 1; wait and run wait for one and say so once. Ctrl-C then ends them
// with 130: nobody passed the barrier, and CMD never ran.
func TestNoZooKeeper(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	addr := zktest.NoZooKeeper(t)
	for _, args := range [][]string{{"set", "/b"}, {"remove", "/b"}} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			zktest.ExpectFailsWithoutZooKeeper(t, addr, bin, zktest.WithServers(args, addr)...)
		})
	}
	for _, args := range [][]string{{"wait", "/b"}, {"run", "--count", "2", "/b", "--", "true"}} {
		t.Run(args[0]+" waits", func(t *testing.T) {
			t.Parallel()
			zktest.ExpectWaitsWithoutZooKeeper(t, addr, 130, bin, zktest.WithServers(args, addr)...)
		})
	}
}
