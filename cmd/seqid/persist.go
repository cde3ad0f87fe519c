package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

func persistCommand() *cli.Command {
	return &cli.Command{
		Name: "persist",
		Usage: "run one persistence process: the elected leader keeps every sequence's limit above its IDs, " +
			"storing each reservation in --store before raising a limit to it; the others wait their turn",
		Flags: append(commonFlags("info"),
			&cli.StringFlag{Name: "store", Usage: "the `directory` where reservations are kept, the same for every persistence process (it stands for the article's S3)"},
			&cli.StringFlag{Name: "block", Value: "1000", Usage: "IDs per reservation: the limit is kept at least this far above the next ID, 1 or more"},
			&cli.StringFlag{Name: "election", Value: sequence.DefaultElection, Usage: "the znode under which persistence processes stand for election"},
			&cli.StringFlag{Name: "name", Usage: "this process's name in its election znode (default: host:pid)"},
			metrics.Flag()),
		Action: runPersist,
	}
}

func runPersist(c *cli.Context) error {
	if _, err := args(c); err != nil {
		return err
	}
	s, err := parseSettings(c)
	if err != nil {
		return err
	}
	block, err := int64Flag(c, "block", 1, sequence.MaxBlock)
	if err != nil {
		return err
	}
	if err := recoverable.ValidatePath("election", c.String("election")); err != nil {
		return cmdline.BadFlag("election", "%s", cmdline.Reason(err))
	}
	addr, err := metrics.Parse(c)
	if err != nil {
		return err
	}
	fileStore, err := openStore(c)
	if err != nil {
		return err
	}
	var store sequence.Store = fileStore
	if v, ok := os.LookupEnv(storeLatencyEnv); ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return cmdline.Usage("$%s: %q is not a duration of 0 or more", storeLatencyEnv, v)
		}
		store = slowStore{store, d}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	log := s.Logger()
	ms, err := metrics.Listen(addr, log) // before anything starts: a port in use starts nothing
	if err != nil {
		return err
	}
	defer ms.Close()
	opts := append(s.opts(), sequence.WithBlock(block), sequence.WithElection(c.String("election")))
	if c.String("name") != "" {
		opts = append(opts, sequence.WithName(c.String("name")))
	}
	pm := newPersistMetrics(ms, s.opts())
	defer ms.Serve(ctx)()
	log.Info("standing for election as a persistence process", "store", fileStore.Dir(), "block", block, "pid", os.Getpid())
	for ctx.Err() == nil {
		if err := persistOnce(ctx, s, log, store, opts, pm); err != nil {
			return err
		}
	}
	log.Info("stopped standing for election; bye")
	return nil
}

// persistOnce runs a Persister on a client of its own until ctx ends, or
// until no server has taken the client back for two session timeouts:
// then it returns nil, and runPersist starts over with a new client.
//
// Why a new client: after ZooKeeper lost its data and started afresh,
// every server refuses a client that has seen a transaction newer than
// its own ("has seen zxid … our last zxid is …" in the server log), and
// go-zookeeper would try them forever. A new client has seen nothing. It
// is safe for a persistence process: its raises are checked by ZooKeeper
// against the sequence's version and its own election znode.
func persistOnce(ctx context.Context, s settings, log *slog.Logger, store sequence.Store, opts []sequence.Option, pm *persistMetrics) error {
	rz, err := s.connect(log)
	if err != nil {
		return err
	}
	strandedCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stranded := watchStranded(strandedCtx, rz, 2*s.SessionTimeout)
	// The first session may take a while: say so, and why, meanwhile.
	if err := cmdline.AwaitSession(strandedCtx, log, rz, s.Servers, s.SessionTimeout); err != nil {
		rz.Close()
		return nil // Ctrl-C: runPersist ends
	}
	var p *sequence.Persister
	for p == nil {
		start, cancelStart := context.WithTimeout(strandedCtx, s.SessionTimeout+5*time.Second)
		p, err = sequence.NewPersister(start, rz, store, opts...)
		cancelStart()
		if errors.Is(err, sequence.ErrInvalid) {
			rz.Close()
			return cmdline.Usage("%s", cmdline.Reason(err))
		}
		if errors.Is(err, zk.ErrNoAuth) {
			rz.Close() // trying again would not change the ACL
			return cmdline.ExplainNoAuth(err)
		}
		if strandedCtx.Err() != nil {
			break
		}
		if err != nil {
			log.Warn("could not join the election yet; trying again", "error", err)
		}
	}
	// The ACL refuses our --auth: the election's (the monitor gave up
	// joining) or the sequences' (the leader cannot raise a limit).
	var gaveUp, failed <-chan struct{}
	if p != nil {
		gaveUp, failed = p.Monitor().Done(), p.Failed()
		pm.follow(strandedCtx, rz, p)
	}
	select {
	case <-gaveUp:
		p.Close()
		rz.Close()
		return cmdline.ExplainNoAuth(p.Monitor().Err())
	case <-failed:
		p.Close() // first: a backup with the right --auth takes over
		rz.Close()
		return cmdline.ExplainNoAuth(p.Err())
	case <-ctx.Done():
		// Silence first, then our znode goes, so that a backup takes over
		// at once, as a speaker leaves; then the session.
		if p != nil {
			p.Close()
		}
		rz.Close()
	case <-stranded:
		log.Warn("no ZooKeeper server has taken us back for two session timeouts; starting over with a new client "+
			"(after ZooKeeper lost its data, for one, servers refuse a client that has seen newer transactions)", "after", 2*s.SessionTimeout)
		rz.Close() // first, so that leaving the election fails at once instead of waiting
		if p != nil {
			p.Close()
		}
	}
	return nil
}

// watchStranded returns a channel closed when rz, once connected, has been
// without a connection for longer than d. A client that never connected
// has seen no transaction that a server could hold against it: a new one
// would fare no better, so it only waits.
func watchStranded(ctx context.Context, rz *recoverable.RecoverableZookeeper, d time.Duration) <-chan struct{} {
	out := make(chan struct{})
	events := rz.Observe(ctx)
	go func() {
		var timer <-chan time.Time
		connected := false
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				switch ev.State {
				case recoverable.StateConnected:
					timer, connected = nil, true
				case recoverable.StateDisconnected, recoverable.StateExpired:
					if timer == nil && connected {
						timer = time.After(d)
					}
				}
			case <-timer:
				close(out)
				return
			}
		}
	}()
	return out
}

// storeLatencyEnv makes every reservation answer late, after it was
// written, as a remote store (the article's S3) may: the leader's raise
// then comes that much after its store, a window in which it can be
// frozen or cut off. The tests use it to freeze a leader in that window.
const storeLatencyEnv = "SEQID_STORE_LATENCY"

// slowStore is a Store whose Raise answers d late.
type slowStore struct {
	sequence.Store
	d time.Duration
}

// Raise raises the reservation, then waits d before it answers.
func (s slowStore) Raise(ctx context.Context, name string, r sequence.Reservation) (sequence.Reservation, error) {
	v, err := s.Store.Raise(ctx, name, r)
	time.Sleep(s.d)
	return v, err
}
