package sequence

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// Persister is one persistence process of the article: it stands for
// election among its peers (sequential znodes, each watching its
// predecessor, on the NodeMonitor's engine), and while it leads it keeps
// every sequence's limit a block or more above its next ID, storing each
// reservation in the Store before it raises a limit to it. Sequences added
// or removed under the root are picked up through a children watch,
// without a restart.
type Persister struct {
	rz    *recoverable.RecoverableZookeeper
	store Store
	o     options
	log   *slog.Logger

	mon     *nodemonitor.Monitor
	monSet  chan struct{} // closed once mon is set: a term may start before
	mu      sync.Mutex
	term    *term
	raises  atomic.Int64
	refused atomic.Int64

	failed   chan struct{} // closed by fail
	failOnce sync.Once
	err      error // why it failed (under mu)
}

// NewPersister starts a persistence process on the session of rz, storing
// reservations in store. It returns once it stands for election; Close
// ends it.
func NewPersister(ctx context.Context, rz *recoverable.RecoverableZookeeper, store Store, opts ...Option) (*Persister, error) {
	o, err := newOptions(rz, opts)
	if err != nil {
		return nil, err
	}
	if o.name == "" {
		host, _ := os.Hostname()
		o.name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if err := rz.EnsurePath(ctx, o.root, o.acl); err != nil {
		return nil, err
	}
	p := &Persister{rz: rz, store: store, o: o, log: o.log, monSet: make(chan struct{}), failed: make(chan struct{})}
	mon, err := nodemonitor.New(rz, p, nodemonitor.WithPath(o.election), nodemonitor.WithWatch(nodemonitor.WatchPredecessor),
		nodemonitor.WithPolicy(nodemonitor.AtMostOne))
	if err != nil {
		return nil, err
	}
	p.mon = mon
	close(p.monSet)
	return p, nil
}

// Done is closed when the Persister has ended: closed, or given up by its
// election (the ACL refuses our credentials to stand in it). Err says why;
// see Failed for a leader that can no longer raise limits, which goes on
// until its owner closes it. With Monitor().Observe, which tells whether
// it leads, they are its change stream.
func (p *Persister) Done() <-chan struct{} { return p.mon.Done() }

// Monitor returns the Persister's election monitor, to observe whether it
// leads.
func (p *Persister) Monitor() *nodemonitor.Monitor { return p.mon }

// Raises returns how many limits this process raised, and Refused how
// many raises ZooKeeper refused because it no longer led.
func (p *Persister) Raises() int64 { return p.raises.Load() }

// Refused: see Raises.
func (p *Persister) Refused() int64 { return p.refused.Load() }

// Failed is closed when the Persister cannot do its job with the
// credentials its session has: ZooKeeper refused to raise a limit by the
// sequences' ACL. A leader that cannot raise limits must not go on leading,
// or no backup will: its owner should Close it, and say Err. Until then it
// keeps trying, in case the ACL is put back. (A Persister
// refused from the start does not lead: its Monitor gives up, see
// nodemonitor.Monitor.Done.)
func (p *Persister) Failed() <-chan struct{} { return p.failed }

// Err returns why the Persister failed, once Failed is closed, or why its
// election gave up, once Done is; nil before, and after a plain Close.
func (p *Persister) Err() error {
	p.mu.Lock()
	err := p.err
	p.mu.Unlock()
	if err != nil {
		return err
	}
	return p.mon.Err()
}

// fail records the first reason the Persister cannot go on, and closes
// Failed.
func (p *Persister) fail(err error) {
	p.failOnce.Do(func() {
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		// At debug only: Err hands the reason to the owner, who says it
		// in one line; an ERROR line as well would say it twice.
		p.log.Debug("cannot maintain the sequences: ZooKeeper refuses us by their ACL (were they made with another user:password?)", "error", err)
		close(p.failed)
	})
}

// Close stops maintaining, leaves the election (our znode is deleted, so
// that a backup takes over at once), and waits.
func (p *Persister) Close() {
	<-p.monSet
	p.mon.Close()
	p.StopSpeaking()
}

// StartSpeaking is the election's word that we lead: a term of
// maintenance starts, on goroutines that StopSpeaking ends.
func (p *Persister) StartSpeaking(confirm func(context.Context) (int64, time.Time, error)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.term != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.term = &term{p: p, cancel: cancel, done: make(chan struct{}), maintainers: map[string]context.CancelFunc{}}
	go p.term.run(ctx, confirm)
}

// StopSpeaking ends the term, if one runs, and returns once its
// goroutines have.
func (p *Persister) StopSpeaking() {
	p.mu.Lock()
	t := p.term
	p.term = nil
	p.mu.Unlock()
	if t != nil {
		t.cancel()
		<-t.done
	}
}

// ProcessName names this process in its election znode.
func (p *Persister) ProcessName() string { return p.o.name }
