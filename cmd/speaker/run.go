package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// runSpeaker is the default action: the articles' SpeakerServer. It wires a
// Speaker to a monitor on a RecoverableZookeeper and runs until SIGINT or
// SIGTERM or SIGHUP.
func runSpeaker(c *cli.Context) error {
	if c.NArg() > 0 {
		return cmdline.Usage("unexpected argument %q", c.Args().First())
	}
	cfg, err := parseConfig(c)
	if err != nil {
		return err
	}
	name := cfg.name
	if name == "" {
		name = strconv.Itoa(os.Getpid())
	}
	log := cfg.Logger().With("name", name)

	// SIGHUP too: closing a terminal window (or detaching demo-tmux) sends
	// it, and the speaker must leave the election as on Ctrl-C, not leave
	// its znode behind until the session expires.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	// The metrics' address first: taken, it is the one error, and nothing
	// has started.
	ms, err := metrics.Listen(cfg.metrics, log)
	if err != nil {
		return err
	}
	defer ms.Close()

	spk, err := speaker.New(cfg.out, speaker.WithName(name), speaker.WithInterval(cfg.interval),
		speaker.WithFsync(cfg.fsync), speaker.WithFence(cfg.fence), speaker.WithLogger(log))
	if err != nil {
		return err
	}
	defer spk.Close()

	// The monitor logs to the session's logger: log, with our name.
	rz, _, err := cfg.Connect(log, recoverable.WithRetry(cfg.retry))
	if err != nil {
		return err
	}
	stopSaying := cmdline.SayWhileUnreachable(ctx, log, rz, cfg.Servers, cfg.SessionTimeout)
	defer stopSaying()

	mon, err := cfg.election.start(rz, listenerFor(ms, spk), monitorSettings{path: cfg.path, watch: cfg.watch, policy: cfg.policy})
	if err != nil {
		rz.Close()
		return err
	}
	log.Info("speaker started", "election", cfg.election.name, "path", cfg.path, "out", cfg.out, "interval", cfg.interval)
	registerSpeaker(ctx, ms, rz, mon, spk)
	defer ms.Serve(ctx)()

	// SIGUSR1 asks the leader to step down and stand again, without a
	// restart: a handover before maintenance.
	resign := make(chan os.Signal, 1)
	signal.Notify(resign, syscall.SIGUSR1)
	defer signal.Stop(resign)
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case <-mon.Done():
			// It gave up: the election's znodes were made with another --auth.
			// Waiting on would only repeat the refusal; say it in one line.
			break wait
		case <-resign:
			resignOnRequest(ctx, log, mon)
		}
	}
	shutdown(log, spk, mon, rz)
	if err := mon.Err(); err != nil {
		return cmdline.ExplainNoAuth(err)
	}
	// Logged after the close went out, not before: the successor is waiting.
	log.Info("shut down: stopped speaking and closed the session")
	return nil
}

// resignOnRequest is SIGUSR1: a leader stops speaking, deletes its znode
// with one server write, which hands over as a graceful exit does, and
// stands again; anyone else says there is nothing to resign. The monitor
// bounds the delete by the session's life and logs how it ended, even
// when the answer comes late; only a shutdown (ctx) cuts the wait short.
func resignOnRequest(ctx context.Context, log *slog.Logger, mon monitor) {
	log.Info("SIGUSR1: asked to resign the leadership")
	switch err := mon.Resign(ctx); {
	case err == nil, errors.Is(err, nodemonitor.ErrStillLeading), errors.Is(err, nodemonitor.ErrResignUnknown):
		// The monitor logged what happened.
	case errors.Is(err, nodemonitor.ErrNothingToResign):
		log.Info("not the leader: nothing to resign; staying in line")
	case errors.Is(err, nodemonitor.ErrPausedResign):
		log.Warn("cut off from ZooKeeper: cannot resign now; send SIGUSR1 again once reconnected")
	case ctx.Err() != nil, errors.Is(err, nodemonitor.ErrClosed):
		// Shutting down: the lines that follow say how.
	default:
		log.Warn("could not resign", "error", err)
	}
}

// shutdown stops speaking at once, then leaves the election with one server
// write: the monitor's Close deletes our znode, which notifies the
// successor. The session is closed sessionCloseDelay later, off the
// successor's path: closed at once, its transaction and the server's
// teardown of our connection land in the middle of the successor's round
// trip, and `speaker bench` measured it slower that way. With
// ZooKeeper out of reach that could hang, so it gives up after 900 ms: the
// process must exit within a second.
func shutdown(log *slog.Logger, spk *speaker.Speaker, mon monitor, rz *recoverable.RecoverableZookeeper) {
	// Retire, not StopSpeaking: the monitor may still win the election before
	// it is closed, and its StartSpeaking must not write another line.
	spk.Retire()
	done := make(chan struct{})
	go func() {
		defer close(done)
		mon.Close()
		if err := spk.Close(); err != nil {
			log.Error("closing the out file", "error", err)
		}
		time.Sleep(sessionCloseDelay)
		rz.Close()
	}()
	select {
	case <-done:
	case <-time.After(900 * time.Millisecond):
		log.Warn("ZooKeeper did not answer in time; exiting, the session will expire on its own")
	}
}

// sessionCloseDelay is how long a leaving speaker waits between deleting its
// znode and closing its session: far longer than a failover takes on one
// machine, short enough that nobody waits for the exit.
const sessionCloseDelay = 100 * time.Millisecond
