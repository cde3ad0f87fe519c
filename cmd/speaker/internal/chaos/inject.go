package chaos

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"zkspeaker/internal/faultproxy"
	"zkspeaker/internal/fourletter"
)

// planned is a fault drawn by the schedule, before it happens.
type planned struct {
	kind    Kind
	speaker *speakerProc // the target of a speaker's fault
	servers []int        // the 1-based ZooKeeper servers of a server fault
	hold    time.Duration
	leader  bool
	// pick chooses the znode an operator's delete takes among the
	// processes' own (Recipe.Members): the draw's, modulo their number.
	pick int
}

// inject makes the fault happen and returns it as it happened. It blocks
// for as long as the fault lasts.
func (s *soak) inject(ctx context.Context, p planned) Fault {
	f := Fault{Kind: p.kind, Leader: p.leader, Start: time.Now()}
	if p.speaker != nil {
		f.Target = p.speaker.name
	}
	var instant bool
	switch p.kind {
	case Kill, Term, LostCreate:
		instant = s.restartFault(ctx, p, &f)
	case ServerKill, QuorumLoss, DataLoss, DeleteLeader, DeletePath:
		instant = s.zooKeeperFault(ctx, p, &f)
	default:
		s.processFault(ctx, p, &f)
	}
	if instant {
		return f
	}
	if f.End.IsZero() {
		f.End = time.Now()
	}
	f.Note = fmt.Sprintf("for %v", f.End.Sub(f.Start).Round(time.Millisecond))
	return f
}

// restartFault ends a process (SIGKILL, SIGTERM, or SIGTERM with a trap for
// its next create's reply) and starts it again. The fault is the signal:
// the restart is a new candidate, so it is instant (End is Start).
func (s *soak) restartFault(ctx context.Context, p planned, f *Fault) (instant bool) {
	sp := p.speaker
	switch p.kind {
	case Kill, Term:
		sig := syscall.SIGKILL
		if p.kind == Term {
			sig = syscall.SIGTERM
		}
		exit := sp.stop(sig, ExitLimit)
		if p.kind == Term {
			s.noteExit(exit)
		}
		sleep(ctx, p.hold)
		f.Note = s.restart(sp, p.hold)
	case LostCreate:
		// The next create under the election path is applied by the
		// server, and its reply never arrives: the connection is reset.
		// A restart makes the process create its znode anew.
		prefix := s.cfg.electionPath()
		if s.cfg.Election == "sequential" {
			prefix += "/"
		}
		var traps []<-chan struct{}
		sp.network(func(p *faultproxy.Proxy) {
			p.ResetAfterCreate(prefix)
			traps = append(traps, p.Fired())
		})
		s.noteExit(sp.stop(syscall.SIGTERM, ExitLimit))
		f.Note = s.restart(sp, 0)
		sleep(ctx, p.hold)
		f.Note += "; " + lostCreate(traps, prefix, p.hold)
		sp.network(func(p *faultproxy.Proxy) { p.ResetAfterCreate("") }) // disarm the proxies it did not use
	}
	f.End = f.Start
	return true
}

// processFault freezes a process or faults its network for p.hold.
func (s *soak) processFault(ctx context.Context, p planned, f *Fault) {
	sp := p.speaker
	switch p.kind {
	case StopShort, StopLong:
		sp.signal(syscall.SIGSTOP)
		sleep(ctx, p.hold)
		// End is taken before the fault is lifted: the process may write
		// the instant it runs again, before this goroutine reads a clock.
		f.End = time.Now()
		sp.signal(syscall.SIGCONT)
	case Reset:
		sp.network((*faultproxy.Proxy).Reset)
		sleep(ctx, p.hold)
		f.End = time.Now()
		sp.network((*faultproxy.Proxy).Restore)
	case Storm:
		for range 5 {
			sp.network((*faultproxy.Proxy).Reset)
			sleep(ctx, 15*time.Millisecond)
			sp.network((*faultproxy.Proxy).Restore)
			sleep(ctx, p.hold/5)
		}
	case HoleShort, HoleLong:
		sp.network((*faultproxy.Proxy).Cut)
		sleep(ctx, p.hold)
		f.End = time.Now()
		sp.network((*faultproxy.Proxy).Heal)
	}
}

// zooKeeperFault kills servers, loses all their data, or deletes by hand
// as an operator would. Deletes and data losses are instant faults.
func (s *soak) zooKeeperFault(ctx context.Context, p planned, f *Fault) (instant bool) {
	switch p.kind {
	case ServerKill, QuorumLoss:
		f.Target = serverNames(p.servers)
		for _, id := range p.servers {
			if err := s.ens.Kill(ctx, id); err != nil {
				f.Note = err.Error()
			}
		}
		sleep(ctx, p.hold)
		for _, id := range p.servers {
			if err := s.ens.StartServer(ctx, id); err != nil {
				f.Note = err.Error()
			}
		}
		s.awaitQuorum(ctx)
		return false
	case DataLoss:
		f.Target = serverNames(p.servers)
		f.Note = s.loseEverything(ctx, p.servers)
		f.End = time.Now()
		return true
	}
	var err error
	switch {
	case p.kind == DeleteLeader && s.op.members:
		f.Target, err = s.op.deleteMember(ctx, p.pick)
	case p.kind == DeleteLeader || s.cfg.Election == "single-file":
		f.Target, err = s.op.deleteLeader(ctx, s.cfg.Election == "sequential")
	default:
		f.Target, err = s.cfg.electionPath(), s.op.deletePath(ctx)
	}
	if err != nil {
		f.Note = err.Error()
	}
	if f.Target == "" {
		f.Target = "-"
	}
	f.End = f.Start
	return true
}

// restart starts a stopped process again after a wait, and says so for
// the fault log: "restarted after 1.2s", or "at once" when it did not wait.
func (s *soak) restart(sp *speakerProc, after time.Duration) string {
	if err := sp.start(); err != nil {
		return "could not restart: " + err.Error()
	}
	if after <= 0 {
		return fmt.Sprintf("restarted at once as pid %d", sp.lastPid())
	}
	return fmt.Sprintf("restarted after %v as pid %d", after.Round(time.Millisecond), sp.lastPid())
}

// lostCreate says whether a lost create's trap sprang within hold: the
// process made a create under prefix and its reply was lost, or it made
// none (a process that makes none, or had not got that far), and
// the fault was a plain restart.
func lostCreate(traps []<-chan struct{}, prefix string, hold time.Duration) string {
	for _, fired := range traps {
		select {
		case <-fired:
			return fmt.Sprintf("the reply to its create under %s was lost", prefix)
		default:
		}
	}
	return fmt.Sprintf("it made no create under %s within %v: no reply lost", prefix, hold.Round(time.Millisecond))
}

// awaitQuorum waits until a majority of the servers serve again.
func (s *soak) awaitQuorum(ctx context.Context) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		serving := 0
		for _, addr := range s.ens.Addrs {
			c, cancel := context.WithTimeout(ctx, time.Second)
			if fourletter.Srvr(c, addr).Mode != "down" {
				serving++
			}
			cancel()
		}
		if serving > len(s.ens.Addrs)/2 {
			return
		}
		sleep(ctx, 100*time.Millisecond)
	}
}

// zkLeader returns the 1-based id of the ZooKeeper leader, 0 if none.
func (s *soak) zkLeader(ctx context.Context) int {
	for i, addr := range s.ens.Addrs {
		c, cancel := context.WithTimeout(ctx, time.Second)
		mode := fourletter.Srvr(c, addr).Mode
		cancel()
		if mode == "leader" {
			return i + 1
		}
	}
	return 0
}

func serverNames(ids []int) string {
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += "+"
		}
		out += fmt.Sprintf("zk%d", id)
	}
	return out
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
