package live

import (
	"context"
	"sync"

	"zkspeaker/recoverable"
)

// Sources names what zkview follows. A path left empty is not followed;
// a panel whose path a flag named shows even while its znode is missing.
type Sources struct {
	// Servers are the servers given; the others of the ensemble are
	// found in /zookeeper/config.
	Servers []string
	// Election is a sequential election, Single a single-file one.
	Election, Single Panel
	Lock             Panel
	Group            Panel
	Config           Panel
	// Sequences is the root of the sequences; Persistence is where their
	// persistence processes stand for election.
	Sequences   Panel
	Persistence string
	// Barrier is a barrier's path, Queue a queue's.
	Barrier, Queue Panel
	// Out is the speakers' out file.
	Out string
}

// Run follows every source into the hub until ctx ends, and returns once
// each of its goroutines has.
func (h *Hub) Run(ctx context.Context, rz *recoverable.RecoverableZookeeper, s Sources) {
	var wg sync.WaitGroup
	start := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	pokes := make(chan struct{}, 1)
	poke := func() {
		select {
		case pokes <- struct{}{}:
		default:
		}
	}
	start(func() { h.probeServers(ctx, rz, s.Servers, pokes) })
	if s.Election.Path != "" {
		start(func() { h.followLine(ctx, rz, s.Election, poke) })
	}
	if s.Single.Path != "" {
		start(func() { h.followSingle(ctx, rz, s.Single, poke) })
	}
	if s.Lock.Path != "" {
		start(func() { h.followLock(ctx, rz, s.Lock, poke) })
	}
	if s.Group.Path != "" {
		start(func() { h.followGroup(ctx, rz, s.Group) })
	}
	if s.Config.Path != "" {
		start(func() { h.followConfig(ctx, rz, s.Config) })
	}
	if s.Sequences.Path != "" {
		start(func() { h.followSequences(ctx, rz, s.Sequences, s.Persistence) })
	}
	if s.Barrier.Path != "" {
		start(func() { h.followBarrier(ctx, rz, s.Barrier, poke) })
	}
	if s.Queue.Path != "" {
		start(func() { h.followQueue(ctx, rz, s.Queue, poke) })
	}
	if s.Out != "" {
		start(func() { h.followOut(ctx, s.Out) })
	}
	wg.Wait()
}
