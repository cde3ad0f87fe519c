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
	"sync"
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
	handed.Lock()
	defer handed.Unlock()
	for tries := 0; tries < 100; tries++ {
		base := lowestPort + rand.Intn(ephemeralStart-ElectionOffset-n-lowestPort)
		if !handed.overlaps(base, n) && free(base, n) {
			handed.bases = append(handed.bases, [2]int{base, n})
			return base, nil
		}
	}
	return 0, ErrNoPorts
}

// The kernel gives clients' outgoing connections ports from 32768 up
// (net.ipv4.ip_local_port_range), and the tests open thousands: a server
// port there could be taken between the check and the server's bind. So
// every port of a layout stays in [lowestPort, ephemeralStart).
const (
	lowestPort     = 20000
	ephemeralStart = 32768
)

// handed remembers the layouts this process has handed out, so that two
// parallel tests never get overlapping ones: the check alone cannot tell
// ports that a server is about to bind.
var handed layouts

// layouts are the layouts handed out: base and n each.
type layouts struct {
	sync.Mutex
	bases [][2]int
}

// overlaps says whether a layout of n servers at base shares a port with
// one handed out.
func (h *layouts) overlaps(base, n int) bool {
	for _, b := range h.bases {
		// Layouts repeat every 1000 ports (client, peer, election): two
		// overlap when their bases are within the larger n of each other,
		// modulo the offsets.
		for _, off := range []int{-ElectionOffset, -PeerOffset, 0, PeerOffset, ElectionOffset} {
			if d := base + off - b[0]; d > -n && d < b[1] {
				return true
			}
		}
	}
	return false
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
