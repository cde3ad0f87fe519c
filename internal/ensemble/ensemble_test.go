package ensemble

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"zkspeaker/internal/testkit/leakcheck"
)

// TestMain fails the package when its tests leave a goroutine running. With
// ownerEnv set, the test binary is instead an owner of an ensemble, which
// the owner test kills.
func TestMain(m *testing.M) {
	if os.Getenv(ownerEnv) != "" {
		os.Exit(runOwner())
	}
	os.Exit(leakcheck.Main(m))
}

func TestFreeBaseLeavesEveryPortOfTheLayoutFree(t *testing.T) {
	base, err := FreeBase(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int{0, PeerOffset, ElectionOffset} {
		for i := 0; i < 3; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off+i))
			if err != nil {
				t.Fatalf("port %d of base %d is taken: %v", base+off+i, base, err)
			}
			l.Close()
		}
	}
}

func TestScriptsIsFoundFromTheRepository(t *testing.T) {
	dir, err := Scripts()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "zk-env.sh")); err != nil {
		t.Fatalf("Scripts() = %s, which has no zk-env.sh: %v", dir, err)
	}
}

// The kernel hands out ports from 32768 up to clients' outgoing
// connections, and the tests make thousands: a server port there can be
// taken between FreeBase's check and the server's bind. Parallel tests of
// one binary must not get overlapping layouts either.
func TestFreeBaseStaysBelowTheEphemeralPortsAndNeverRepeats(t *testing.T) {
	taken := map[int]bool{}
	for i := 0; i < 200; i++ {
		base, err := FreeBase(3)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []int{0, PeerOffset, ElectionOffset} {
			for j := 0; j < 3; j++ {
				p := base + off + j
				if p >= 32768 {
					t.Fatalf("FreeBase(3) = %d: port %d is in the kernel's ephemeral range", base, p)
				}
				if taken[p] {
					t.Fatalf("FreeBase(3) = %d: port %d was handed out before", base, p)
				}
				taken[p] = true
			}
		}
	}
}
