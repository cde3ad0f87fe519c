package chaos

import (
	"context"
	"slices"
	"sync"
	"time"
)

// weights says how often each kind is drawn, out of their sum. Faults of
// one speaker come most often: they are where an election goes wrong.
var weights = [numKinds]int{
	Kill: 10, Term: 8, StopShort: 8, StopLong: 7, Reset: 7, HoleShort: 7, HoleLong: 7,
	LostCreate: 6, ServerKill: 6, QuorumLoss: 3, DeleteLeader: 5, DeletePath: 3, Storm: 5,
	DataLoss: 0, // a recipe that can restore draws it: see Recipe.Weights
}

// maxRunning is how many faults may hold at once: one or two, as real
// outages combine them.
const maxRunning = 2

// leaderOdds is how often a speaker's fault hits the leader rather than
// any speaker: the leader's faults are the ones that test a handover.
const leaderOdds = 0.6

// draw is one step of the plan: every random number a step needs, drawn
// in the same order whatever happens, so that a seed always draws the
// same plan. What it is applied to (who leads, who is busy) depends on
// the run.
type draw struct {
	gap      time.Duration // before the fault
	kind     Kind
	toLeader bool
	pick     int     // which free target, modulo their number
	hold     float64 // how long it holds, as a fraction of its range
}

func (s *soak) next() draw {
	all := s.cfg.weights()
	w := all
	if len(s.cfg.Kinds) > 0 {
		w = [numKinds]int{}
		for _, k := range s.cfg.Kinds {
			w[k] = all[k]
		}
	}
	total := 0
	for _, n := range w {
		total += n
	}
	d := draw{gap: 200*time.Millisecond + time.Duration(s.rng.IntN(700))*time.Millisecond}
	r := s.rng.IntN(total)
	for k, n := range w {
		if r < n {
			d.kind = Kind(k)
			break
		}
		r -= n
	}
	d.toLeader = s.rng.Float64() < leaderOdds
	d.pick = s.rng.IntN(1 << 20)
	d.hold = s.rng.Float64()
	return d
}

// holdFor maps a draw's fraction to the kind's range of durations: short
// ones well within the session, long ones well beyond it.
func (s *soak) holdFor(k Kind, frac float64) time.Duration {
	S := s.cfg.Session
	span := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(frac*float64(hi-lo)) }
	switch k {
	case StopShort, HoleShort:
		return span(S/10, S/2)
	case StopLong, HoleLong:
		return span(S*3/2, S*2)
	case Reset:
		return span(20*time.Millisecond, 300*time.Millisecond)
	case Storm:
		return span(50*time.Millisecond, 200*time.Millisecond)
	case ServerKill:
		return span(300*time.Millisecond, 2*time.Second)
	case QuorumLoss:
		return span(200*time.Millisecond, S/2)
	default: // the wait before a restart
		return span(100*time.Millisecond, S)
	}
}

// plan turns a draw into a fault on a free target, or false when the
// draw cannot apply now (its targets are all busy, or it needs an
// ensemble).
func (s *soak) plan(ctx context.Context, d draw) (planned, bool) {
	p := planned{kind: d.kind, hold: s.holdFor(d.kind, d.hold)}
	switch d.kind {
	case ServerKill, QuorumLoss, DeleteLeader, DeletePath, DataLoss:
		if d.kind == QuorumLoss && len(s.ens.Addrs) < 3 {
			return p, false
		}
		if !s.claim("zookeeper") {
			return p, false
		}
		switch d.kind {
		case ServerKill:
			id := 1 + d.pick%len(s.ens.Addrs)
			if leader := s.zkLeader(ctx); d.toLeader && leader > 0 {
				id = leader // the ZooKeeper leader, now and then
			}
			p.servers = []int{id}
		case QuorumLoss:
			first := d.pick % 3
			p.servers = []int{1 + first, 1 + (first+1)%3}
		case DataLoss:
			for i := range s.ens.Addrs {
				p.servers = append(p.servers, i+1)
			}
		default: // the operator's deletes: the leader's znode, or one process's
			p.leader, p.pick = s.cfg.words().Lead != "", d.pick
		}
		return p, true
	}
	var leader string // processes that stand side by side have none
	if s.cfg.words().Lead != "" {
		leader = s.op.leader()
	}
	var free []*speakerProc
	for _, sp := range s.speakers {
		if !s.isBusy(sp.name) {
			free = append(free, sp)
		}
	}
	if len(free) == 0 {
		return p, false
	}
	p.speaker = free[d.pick%len(free)]
	if i := slices.IndexFunc(free, func(sp *speakerProc) bool { return sp.name == leader }); d.toLeader && i >= 0 {
		p.speaker = free[i]
	}
	p.leader = p.speaker.name == leader
	return p, s.claim(p.speaker.name)
}

// targetOf is what plan claimed for p.
func targetOf(p planned) string {
	if p.speaker != nil {
		return p.speaker.name
	}
	return "zookeeper"
}

// busy tracks the targets under a fault now.
type busy struct {
	mu  sync.Mutex
	set map[string]bool
}

func (b *busy) claim(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.set[name] || len(b.set) >= maxRunning {
		return false
	}
	if b.set == nil {
		b.set = map[string]bool{}
	}
	b.set[name] = true
	return true
}

func (b *busy) release(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.set, name)
}

func (b *busy) isBusy(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.set[name]
}

// schedule injects faults until the soak's time is up, then waits for the
// last ones to heal.
func (s *soak) schedule(ctx context.Context, until time.Time) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		d := s.next()
		if time.Now().Add(d.gap).After(until) {
			return
		}
		sleep(ctx, d.gap)
		if ctx.Err() != nil {
			return
		}
		p, ok := s.plan(ctx, d)
		if !ok {
			continue
		}
		ticket := s.expectFault()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.release(targetOf(p))
			s.record(ticket, s.inject(ctx, p))
		}()
	}
}

func (s *soak) noteExit(e Exit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exits = append(s.exits, e)
}
