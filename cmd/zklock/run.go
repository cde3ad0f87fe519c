package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// runLock waits for the lock, runs CMD under the watchdog while the lock is
// held, and exits with CMD's status.
func runLock(c *cli.Context) error {
	s, err := parse(c)
	if err != nil {
		return err
	}
	log := s.Logger().With("name", s.name)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	ms, err := metrics.Listen(s.metrics, log) // first: a port in use starts nothing
	if err != nil {
		return err
	}
	defer ms.Close()
	rz, _, err := s.Connect(log) // log carries our name: the lock's election logs to it
	if err != nil {
		return err
	}
	defer rz.Close()
	defer cmdline.SayWhileUnreachable(ctx, log, rz, s.Servers, s.SessionTimeout)() // before rz.Close
	lk := lock.New(rz, s.path, s.name, s.lockOptions()...)
	release := sync.OnceValue(func() bool { return unlock(lk, rz, log) })
	defer func() { release() }() // on the way out early
	// The metrics last until zklock returns, not until the signal: during
	// the grace that follows it, CMD still runs under the lock.
	life, endLife := context.WithCancel(context.Background())
	defer endLife()
	registerLock(life, ms, rz, lk, s)
	defer ms.Serve(life)()
	log.Info("waiting for the lock", "path", s.path, "mode", s.mode())
	if err := lk.Lock(ctx); err != nil {
		if ctx.Err() != nil {
			return cli.Exit("zklock: interrupted while waiting for the lock", 130)
		}
		if le := (*lock.LeasesError)(nil); errors.As(err, &le) && le.Ours == 0 {
			return cmdline.BadFlag("leases", "not given, but %s is a semaphore that admits %s at once: give --leases %s, or take a lock on another path", le.Path, le.Recorded, le.Recorded)
		} else if errors.As(err, &le) && le.Recorded == "" {
			return cmdline.BadFlag("leases", "%d, but %s is a lock that readers or writers hold or wait for: take the semaphore on another path", le.Ours, le.Path)
		} else if errors.As(err, &le) {
			return cmdline.BadFlag("leases", "%d, but %s admits %s at once: every contender on a path must give the same number", le.Ours, le.Path, le.Recorded)
		}
		return cmdline.ExplainNoAuth(err)
	}
	log.Info("holding the lock; starting CMD", "epoch", lk.Epoch(), "cmd", s.argv[0])
	status, why := supervise(ctx, log, rz, lk, s)
	if release() {
		log.Info("released the lock", "cmd_status", status, "because", why)
	} else {
		log.Info("CMD ended; the lock passes on when our session ends", "cmd_status", status, "because", why)
	}
	if why == revokedWhy {
		return cli.Exit("", revokedStatus)
	}
	if status != 0 {
		return cli.Exit("", status)
	}
	return nil
}

// unlock releases lk, and reports whether its znode is gone; it says so
// when the znode could not be deleted. It waits at most a session timeout:
// cut off from ZooKeeper for longer, our session expires, and the znode
// with it.
func unlock(lk *lock.Lock, rz *recoverable.RecoverableZookeeper, log *slog.Logger) bool {
	ctx, cancel := context.WithTimeout(context.Background(), rz.SessionTimeout())
	defer cancel()
	if err := lk.Unlock(ctx); err != nil {
		log.Warn("could not delete our znode; the next in line waits until our session ends", "error", err)
		return false
	}
	return true
}
