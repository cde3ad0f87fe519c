package live

import (
	"context"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// The servers say nothing of themselves through a watch: a server going
// down, a candidate moving to another server, a process that dies or
// stops, show only when asked. So this one part asks, every probeEvery
// (often enough that a killed leader's card counts its session down
// within a second), and settleFor after each change of an election, when
// the candidates have had a moment to set their new watches.
const (
	probeEvery = 500 * time.Millisecond
	settleFor  = 150 * time.Millisecond
)

// probeServers asks every server of the ensemble its mode, its
// connections and their watches, until ctx ends. A receive on poke asks
// again soon.
func (h *Hub) probeServers(ctx context.Context, rz *recoverable.RecoverableZookeeper, given []string, poke <-chan struct{}) {
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	var (
		members fourletter.Members
		seen    fourletter.Sightings
	)
	for {
		members = fourletter.ReadMembers(ctx, rz.Get, given, members)
		seen = fourletter.Gather(ctx, members, rz.SessionID(), seen)
		if ctx.Err() != nil {
			return
		}
		h.update(time.Time{}, "servers", func(pp *parts) { pp.sightings = seen })
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-poke:
			select {
			case <-ctx.Done():
				return
			case <-time.After(settleFor):
			}
		}
	}
}
