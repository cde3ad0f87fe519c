package sabotage

// Guards are every edit below: the broken build that the chaos soaks'
// checkers must catch, each edit taking out one guard whose absence lets a
// fault show.
var Guards = concat(Election, Lock, Reader, Leases, Sequence, Counter, Group, Config, Barrier, Queue, QueueOrder)

// Election takes out the engine's guards of a paused leader: a speaker so
// built speaks while it may not lead.
var Election = []Edit{
	{
		File: "internal/election/confirm.go",
		Find: []string{"once.Do(func() { first = !proof.Sent.IsZero() })"},
		Put:  []string{"once.Do(func() { first = !proof.Sent.IsZero() })", "return proof.Epoch, time.Now(), nil"},
		Why:  "the leader's Confirm says yes without asking",
	},
	{
		File: "internal/election/loop.go",
		Find: []string{`ls.c.deactivate("paused until the session may have expired")`},
		Put:  []string{},
		Why:  "a paused leader keeps speaking when it gives up on its session",
	},
	{
		File: "internal/election/loop.go",
		Find: []string{"if c.policy == AtMostOne {", "c.listener.StopSpeaking()"},
		Put:  []string{"if false {", "c.listener.StopSpeaking()"},
		Why:  "a paused leader keeps speaking under at-most-one",
	},
}

// Lock takes out the lock's own guards, and zklock's watchdog; with
// Election's, a holder keeps the lock and its CMD through a black hole.
var Lock = []Edit{
	{
		File: "recipes/lock/lock.go",
		Find: []string{"l.startGuard(session)"},
		Put:  []string{},
		Why:  "the lock is not lost at a disconnection",
	},
	{
		File: "cmd/zklock/supervise.go",
		Find: []string{"sv.deadline = func() time.Time { return rz.AliveUntil().Add(-margin) }"},
		Put: []string{"sv.deadline = func() time.Time { return rz.AliveUntil().Add(-margin) }",
			"sv.deadline = func() time.Time { return time.Now().Add(time.Hour) }"},
		Why: "zklock's watchdog never stops CMD",
	},
}

// Reader lets a reader of the shared lock hold whoever stands ahead of
// it: a reader's CMD runs beside a writer's.
var Reader = []Edit{
	{
		File: "recipes/lock/rule.go",
		Find: []string{"return nodemonitor.LeadUnlessAhead(line, ours, isWriter)"},
		Put:  []string{"return true, \"\""},
		Why:  "a reader ignores the writers ahead of it",
	},
}

// Leases lets a semaphore admit one holder more than its leases: the gate
// lets a contender in while N stand, and the lease's rule holds it.
var Leases = []Edit{
	{
		File: "recipes/lock/semaphore.go",
		Find: []string{"if len(nodemonitor.Line(children)) < l.leases {"},
		Put:  []string{"if len(nodemonitor.Line(children)) <= l.leases {"},
		Why:  "the gate admits a contender while every lease is taken",
	},
	{
		File: "recipes/lock/semaphore.go",
		Find: []string{"if ahead < r.n {"},
		Put:  []string{"if ahead <= r.n {"},
		Why:  "a lease holds with N leases ahead of it",
	},
}

// Barrier opens a double barrier one member short of its count.
var Barrier = []Edit{
	{
		File: "recipes/barrier/enter.go",
		Find: []string{"if len(members) >= b.count {"},
		Put:  []string{"if len(members) >= b.count-1 {"},
		Why:  "the member that counts N-1 opens the round",
	},
}

// Queue lets an at-least-once consumer take an item another consumer
// holds: its claim create that meets the other's claim goes on as if the
// claim were its own.
var Queue = []Edit{
	{
		File: "recipes/queue/take.go",
		Find: []string{"case errors.Is(err, zk.ErrNodeExists):", "return nil, errClaimed"},
		Put:  []string{"case errors.Is(err, zk.ErrNodeExists):", "err = nil"},
		Why:  "a claim create that meets another consumer's claim goes on",
	},
	{
		File: "recipes/queue/take.go",
		Find: []string{"if !ok || st.EphemeralOwner != sid {"},
		Put:  []string{"if !ok {"},
		Why:  "and takes the other's claim for its own",
	},
}

// QueueOrder makes a consumer try the items from the last, not the first:
// it takes the newest item, and a higher priority's after a lower's.
var QueueOrder = []Edit{
	{
		File: "recipes/queue/take.go",
		Find: []string{"for _, name := range names {"},
		Put:  []string{"for i := range names {", "name := names[len(names)-1-i]"},
		Why:  "a take tries the items from the last",
	},
}

// Sequence takes out the sequence's compare-and-set.
var Sequence = []Edit{
	{
		File: "recipes/sequence/sequence.go",
		Find: []string{"res, err := s.rz.Multi(ctx, cur.setOps(s.path, ver, want)...)"},
		Put:  []string{"res, err := s.rz.Multi(ctx, cur.setOps(s.path, -1, want)...)"},
		Why:  "a worker writes the next ID without the compare-and-set",
	},
}

// Counter lets a counter sequence's worker hand out the versions at or
// past the limit it read, and take as many as it likes.
var Counter = []Edit{
	{
		File: "recipes/sequence/counter.go",
		Find: []string{"case v < 1 || end >= int64(rolloverAt) || first+c.k > h.Limit:"},
		Put:  []string{"case v < 1 || end >= int64(rolloverAt):"},
		Why:  "a counter's worker hands out versions at or past the limit",
	},
	{
		File: "recipes/sequence/counter.go",
		Find: []string{"room := h.Limit - h.nextAt(s.cver)"},
		Put:  []string{"room := int64(MaxCounterCount)"},
		Why:  "a counter's worker writes as many versions as are asked for, whatever the limit",
	},
}

// Group keeps a member out of its group after its session expired.
var Group = []Edit{
	{
		File: "recipes/group/keep.go",
		Find: []string{"m.past[held.Session] = true", "return true"},
		Put:  []string{"m.past[held.Session] = true", "return false"},
		Why:  "a member does not join again after its session expired",
	},
}

// Config keeps a watcher from reading its key again after its session
// expired.
var Config = []Edit{
	{
		File: "recipes/config/watch.go",
		Find: []string{"if ev.Type == zk.EventNotWatching {"},
		Put:  []string{"if ev.Type == zk.EventNotWatching {", "changed = nil", "continue"},
		Why:  "a watcher forgets the watch its expired session lost",
	},
	{
		File: "recipes/config/watch.go",
		Find: []string{"if ev.State == recoverable.StateConnected && ev.SessionID != read {"},
		Put:  []string{"if false && ev.SessionID != read {"},
		Why:  "a watcher does not read again on a new session",
	},
}

func concat(sets ...[]Edit) []Edit {
	var out []Edit
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}
