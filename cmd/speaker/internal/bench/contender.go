package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// contender is one candidate of a case, whatever its recipe: a speaker on
// one of our monitors, or a holder of a lock: ours, or go-zookeeper's
// zk.Lock (the baseline).
type contender interface {
	// leads reports whether it has written its first line as the leader.
	leads() bool
	// leave is the graceful exit, as its program makes it: the part of a
	// failover that the successor waits for.
	leave()
	// close ends whatever leave left: off the failover's path.
	close()
	// session is its ZooKeeper session, for the traffic counts.
	session() *recoverable.RecoverableZookeeper
	// idle reports, from its session's traffic t, whether it has done all
	// that its last notification (or its joining) made it do. Each recipe
	// ends that work by setting a watch again and waiting for it, so a
	// contender is idle when nothing it sent waits for an answer and it
	// has set a watch since the notification. Only zk.Lock's holder waits
	// on nothing.
	idle(t recoverable.Traffic) bool
}

// firstLine is a contender's report that it wrote its first line as the
// leader and fsynced it: the moment a failover ends.
type firstLine struct {
	at  time.Time
	who contender
	// decided is the successor's traffic when it knew it leads and had
	// confirmed it: what it sent after the notification is the failover's
	// critical path.
	decided recoverable.Traffic
	// err says why the line cannot be counted.
	err error
}

// speakerCandidate is one of ours: a real Speaker, fsyncing, and fencing
// under at-most-one, as `speaker` does, on a monitor of its own session.
type speakerCandidate struct {
	rz    *recoverable.RecoverableZookeeper
	mon   Monitor
	spk   *speaker.Speaker
	lines chan<- firstLine
	// resign makes leave a resignation (Monitor.Resign) instead of the
	// speaker command's exit.
	resign bool

	leading atomic.Bool
	// decided and confirmed are the traffic when the first term began and
	// when its first line's confirm answered.
	decided, confirmed atomic.Pointer[recoverable.Traffic]
	ctx                context.Context // ends with close; bounds the wait for the first line
	cancel             context.CancelFunc
	wg                 sync.WaitGroup
}

// speakerInterval is far beyond any round: a candidate leads for one line,
// and no later tick's confirm falls into another failover's counts. The
// confirm deadline is then a second (see speaker), which the first line's
// proof must meet.
const speakerInterval = time.Hour

// newSpeakerCandidate makes the candidate and starts its waiter for the
// first line at once: started later, on the failover's path, the waiter
// would cost our row a goroutine that zk.Lock's row does not pay.
func newSpeakerCandidate(rz *recoverable.RecoverableZookeeper, out, name string, fence bool, lines chan<- firstLine, log *slog.Logger) (*speakerCandidate, error) {
	spk, err := speaker.New(out, speaker.WithName(name), speaker.WithInterval(speakerInterval),
		speaker.WithFsync(true), speaker.WithFence(fence), speaker.WithLogger(log))
	if err != nil {
		return nil, err
	}
	c := &speakerCandidate{rz: rz, spk: spk, lines: lines}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.wg.Add(1)
	go c.awaitFirstLine(spk.Counter() + 1)
	return c, nil
}

// StartSpeaking notes the traffic so far and hands over to the Speaker.
// The traffic is noted again once the first line's confirm has answered:
// everything the line waited for was sent by then.
func (c *speakerCandidate) StartSpeaking(confirm func(context.Context) (int64, time.Time, error)) {
	t := c.rz.Traffic()
	c.decided.CompareAndSwap(nil, &t)
	c.leading.Store(true)
	counted := confirm
	if confirm != nil {
		counted = func(ctx context.Context) (int64, time.Time, error) {
			epoch, sent, err := confirm(ctx)
			t := c.rz.Traffic()
			c.confirmed.CompareAndSwap(nil, &t)
			return epoch, sent, err
		}
	}
	c.spk.StartSpeaking(counted)
}

// awaitFirstLine waits for the line numbered next, and reports it with the
// traffic at its confirm (or at the decision, when it needed none).
func (c *speakerCandidate) awaitFirstLine(next uint64) {
	defer c.wg.Done()
	if c.spk.Wait(c.ctx, next) != nil {
		return
	}
	_, at := c.spk.LastWritten()
	decided := c.confirmed.Load()
	if decided == nil {
		decided = c.decided.Load()
	}
	report(c.ctx, c.lines, firstLine{at: at, who: c, decided: *decided})
}

// StopSpeaking silences the Speaker.
func (c *speakerCandidate) StopSpeaking() { c.spk.StopSpeaking() }

// Acted is the Speaker's: the engine sets a new leader's own watch after
// its first line, as it does for the speaker command.
func (c *speakerCandidate) Acted() <-chan struct{} { return c.spk.Acted() }

// Prepare and Unprepare are the Speaker's: the fence's lock is taken
// during the successor's round trip, as for the speaker command.
func (c *speakerCandidate) Prepare()   { c.spk.Prepare() }
func (c *speakerCandidate) Unprepare() { c.spk.Unprepare() }

// ProcessName names the candidate's znode.
func (c *speakerCandidate) ProcessName() string { return c.spk.ProcessName() }

func (c *speakerCandidate) leads() bool                                { return c.leading.Load() && c.spk.Counter() > 0 }
func (c *speakerCandidate) session() *recoverable.RecoverableZookeeper { return c.rz }

// idle: a follower watches its predecessor, the children or the
// single-file znode; a leader its own znode (set after its first line), the
// children or the single-file znode.
func (c *speakerCandidate) idle(t recoverable.Traffic) bool {
	return t.InFlight == 0 && t.WatchesSinceEvent > 0
}

// leave is the speaker command's shutdown up to its one write: silence for
// good, then the monitor's Close, which deletes our znode. The command
// closes the file and the session a moment later, off the failover's path;
// close does here.
func (c *speakerCandidate) leave() {
	if c.resign {
		// speaker's SIGUSR1: the monitor silences the Speaker, deletes
		// the znode, and returns once it is gone.
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		defer cancel()
		if err := c.mon.Resign(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "bench: the leader could not resign: %v\n", err)
		}
		return
	}
	c.spk.Retire()
	c.mon.Close()
}

func (c *speakerCandidate) close() {
	_ = c.spk.Close()
	if c.mon != nil {
		c.mon.Close()
	}
	c.rz.Close()
	c.cancel()
	c.wg.Wait()
}

// join waits until the candidate has its znode (or stands in line for the
// single-file one). It stops observing then: an observer left behind would
// be woken by every later change of state, the leaver's silence before its
// delete and the successor's election before its first line, work that the
// speaker command, which observes nothing, does not do.
func (c *speakerCandidate) join(ctx context.Context, path string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for st := range c.mon.Observe(ctx) {
		if st.Node != "" {
			return nil
		}
	}
	return fmt.Errorf("a candidate did not join %s: %w", path, ctx.Err())
}

// report hands a first line to the bench, unless the contender is closed.
func report(ctx context.Context, lines chan<- firstLine, l firstLine) {
	select {
	case lines <- l:
	case <-ctx.Done():
	}
}
