// Package ensemble finds what running ZooKeeper servers on this machine
// needs: free ports in ensemble-scripts/ensemble.sh's layout, the scripts
// themselves, and a standalone server started with them. The bench, the
// test harness and the commands share it, so there is one of each.
package ensemble

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
)

// Server i (0-based) of an ensemble with base port B listens for clients on
// B+i, for its peers on B+PeerOffset+i and for leader election on
// B+ElectionOffset+i, as ensemble.sh lays them out.
const (
	PeerOffset     = 1000
	ElectionOffset = 2000
)

// ErrNoPorts is returned by FreeBase when no free range was found.
var ErrNoPorts = errors.New("ensemble: no free ports for ZooKeeper servers")

// FreeBase picks a base port for n servers whose client, peer and election
// ports are all free on the loopback now. Another process can still take
// one before the servers bind it; callers that start servers retry.
func FreeBase(n int) (int, error) {
	for tries := 0; tries < 100; tries++ {
		base := 20000 + rand.Intn(17000)
		if free(base, n) {
			return base, nil
		}
	}
	return 0, ErrNoPorts
}

func free(base, n int) bool {
	for _, off := range []int{0, PeerOffset, ElectionOffset} {
		for i := 0; i < n; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off+i))
			if err != nil {
				return false
			}
			l.Close()
		}
	}
	return true
}
