package status

import (
	"strings"
	"testing"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recipes/lock"
)

// A semaphore with no lease taken and nobody at its gate prints no empty
// table: it says so in words.
func TestAnIdleSemaphorePrintsNoEmptyTable(t *testing.T) {
	var b strings.Builder
	WriteLine(&b, lock.View{Path: "/render", Exists: true, Leases: 2}, fourletter.NewSightings(nil, nil, true))
	want := "  semaphore: 0 of 2 leases in use (/render records leases=2)\n  gate /render/gate: nobody waits for a lease\n"
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
}
