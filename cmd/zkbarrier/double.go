package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// runDouble enters the double barrier, runs CMD once the count is in,
// leaves when CMD ends, waits until every member has left, and exits with
// CMD's status.
func runDouble(c *cli.Context) error {
	cfg, err := parseRun(c)
	if err != nil {
		return err
	}
	log := cfg.log.With("name", cfg.name)
	cfg.log = log
	// Held until we return, after the session's close: a signal between
	// one phase's listener and the next, or during the close, would
	// otherwise end the process outright, its close cut short.
	held := make(chan os.Signal, 1)
	signal.Notify(held, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(held)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ms, err := metrics.Listen(cfg.metrics, log) // first: a port in use starts nothing
	if err != nil {
		return err
	}
	defer ms.Close()
	rz, err := connect(ctx, cfg, true)
	if err != nil {
		if ctx.Err() != nil {
			return cli.Exit("zkbarrier: interrupted while connecting", 130)
		}
		return err
	}
	defer closeWithin(rz, closeTimeout, log)
	defer cmdline.SayWhileUnreachable(ctx, log, rz, cfg.Servers, cfg.SessionTimeout)() // before the close
	b, _ := barrier.NewDouble(rz, cfg.path, cfg.count, barrier.WithName(cfg.name))     // checked by parseRun
	life, endLife := context.WithCancel(context.Background())
	defer endLife()
	registerDouble(life, ms, rz, b, cfg)
	defer ms.Serve(life)()

	log.Info("entering the double barrier", "path", cfg.path, "count", cfg.count)
	if err := b.Enter(ctx); err != nil {
		if ctx.Err() != nil {
			return cli.Exit("zkbarrier: interrupted while waiting to enter", 130)
		}
		if ce := (*barrier.CountError)(nil); errors.As(err, &ce) {
			return cmdline.BadFlag("count", "%s", ce.Reason())
		}
		return cmdline.ExplainNoAuth(err)
	}
	// From here on, signals go to CMD (execute). Its channel listens
	// before ctx's stops, so that no signal falls between them; one that
	// ctx took as all came in means CMD never starts.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	interrupted := ctx.Err() != nil // before stop, which cancels ctx
	stop()
	if interrupted {
		log.Info("asked to stop as all came in: not starting CMD; our member znode goes as our session closes")
		abandon(b)
		return cli.Exit("zkbarrier: interrupted before CMD started", 130)
	}
	log.Info("all are in: starting CMD", "count", cfg.count, "round", b.Round(), "cmd", cfg.argv[0])
	status, asked := execute(b, cfg, signals)
	if asked {
		return quit(b, cfg, status)
	}
	return leave(b, cfg, status)
}

// quit ends a member whose CMD ended because zkbarrier was asked to stop:
// it exits with CMD's status at once, rather than wait, perhaps for
// minutes, for the others to finish theirs. Its member znode goes as its
// session closes, so the others do not wait for it either; its CMD has
// ended, as the rule wants of every member they leave behind.
func quit(b *barrier.DoubleBarrier, cfg config, status int) error {
	cfg.log.Info("asked to stop: CMD ended; not waiting for the others to leave, our member znode goes as our session closes", "cmd_status", status)
	abandon(b)
	if status != 0 {
		return cli.Exit("", status)
	}
	return nil
}

// abandon ends b's guard without leaving: a Leave whose context is done
// deletes nothing, and our member znode goes as our session closes.
func abandon(b *barrier.DoubleBarrier) {
	now, cancel := context.WithCancel(context.Background())
	cancel()
	_ = b.Leave(now)
}

// closeTimeout bounds the close of the session on the way out: cut off
// from ZooKeeper (a black hole), go-zookeeper waits for its close request
// and then for its read timeout, and a process asked to stop must not. Its
// ephemeral znode then goes when the session expires.
const closeTimeout = time.Second

// closeWithin closes rz, waiting at most d for the close to finish; the
// process exits right after, and a close still under way ends with it.
func closeWithin(rz *recoverable.RecoverableZookeeper, d time.Duration, log *slog.Logger) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		rz.Close()
	}()
	select {
	case <-done:
	case <-time.After(d):
		log.Warn("ZooKeeper did not take our close in time; our member znode goes when the session expires", "waited", d)
	}
}

// leave leaves the barrier after CMD, and waits until every member of the
// round still alive has left, or until Ctrl-C, SIGTERM or SIGHUP.
func leave(b *barrier.DoubleBarrier, cfg config, status int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg.log.Info("CMD ended: leaving, and waiting until every member still alive has left", "cmd_status", status)
	err := b.Leave(ctx)
	switch {
	case ctx.Err() != nil:
		cfg.log.Info("asked to stop while waiting for the others to leave: our member znode goes as our session closes")
		return cli.Exit("zkbarrier: interrupted while waiting for the others to leave", 130)
	case errors.Is(err, barrier.ErrLost):
		cfg.log.Warn("we lost our place inside while CMD ran (session expired?): the others did not wait for us")
		if status == 0 {
			status = 1
		}
	case err != nil:
		return err
	}
	if status != 0 {
		return cli.Exit("", status)
	}
	return nil
}

// execute runs CMD until it exits, and returns its status, and whether
// zkbarrier was asked to stop meanwhile. The signals to zkbarrier
// (signals) go on to CMD, and CMD gets SIGTERM when our place inside is
// lost: the others no longer wait for it. CMD gets SIGKILL should
// zkbarrier die (the parent-death signal), so that a killed member's CMD
// does not run on unseen.
func execute(b *barrier.DoubleBarrier, cfg config, signals <-chan os.Signal) (status int, asked bool) {
	cmd := exec.Command(cfg.argv[0], cfg.argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "ZKBARRIER_PATH="+cfg.path, "ZKBARRIER_MEMBER="+b.Member(), "ZKBARRIER_ROUND="+strconv.FormatInt(b.Round(), 10))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		cfg.log.Error("cannot start CMD", "error", err)
		return 1, false
	}
	done := make(chan int, 1)
	go func() { done <- exitStatus(cmd.Wait()) }()
	states, cancel := observe(b)
	defer cancel()
	for {
		select {
		case status := <-done:
			return status, asked
		case sig := <-signals:
			asked = true
			_ = cmd.Process.Signal(sig)
		case st, ok := <-states:
			if !ok {
				states = nil
			} else if st == barrier.StateLost {
				cfg.log.Warn("our member znode is gone: the others no longer wait for us; stopping CMD")
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
		}
	}
}

// observe follows the barrier's states until cancel.
func observe(b *barrier.DoubleBarrier) (<-chan barrier.State, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	return b.Observe(ctx), cancel
}

// exitStatus is CMD's exit status, 128+N when signal N ended it, as a
// shell reports it.
func exitStatus(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
