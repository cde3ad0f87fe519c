package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// connect opens the session. A command that acts and exits (set, remove)
// fails at once when no ZooKeeper answers, and ctx, bounded by --timeout,
// bounds its wait; one that waits (wait, run) waits for ZooKeeper as long
// as it takes, saying so.
func connect(ctx context.Context, cfg config, waits bool) (*recoverable.RecoverableZookeeper, error) {
	return cfg.Session(ctx, cfg.log, waits)
}

// simple runs op on the simple barrier at PATH, on a fresh session. For set
// and remove, --timeout bounds it; wait waits until the barrier goes or
// Ctrl-C, SIGTERM or SIGHUP.
func simple(c *cli.Context, waits bool, op func(context.Context, *barrier.Barrier) error) error {
	cfg, err := parse(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if !waits {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	rz, err := connect(ctx, cfg, waits)
	if err == nil {
		defer rz.Close()
		b, _ := barrier.New(rz, cfg.path) // PATH was checked
		err = op(ctx, b)
	}
	switch {
	case err == nil:
		return nil
	case waits && ctx.Err() != nil:
		return cli.Exit("zkbarrier: interrupted while waiting", 130)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("ZooKeeper did not answer within --timeout %v", cfg.timeout)
	case errors.Is(err, zk.ErrNotEmpty):
		return fmt.Errorf("%s has children: it is a double barrier's (zkbarrier run), not one to remove", cfg.path)
	}
	return cmdline.ExplainNoAuth(err)
}

// runSet sets the barrier.
func runSet(c *cli.Context) error {
	return simple(c, false, func(ctx context.Context, b *barrier.Barrier) error {
		if err := b.Set(ctx); err != nil {
			return err
		}
		fmt.Println("set", b.Path())
		return nil
	})
}

// runWait waits until the barrier is removed.
func runWait(c *cli.Context) error {
	return simple(c, true, func(ctx context.Context, b *barrier.Barrier) error {
		if err := b.Wait(ctx); err != nil {
			return err
		}
		fmt.Println("passed", b.Path())
		return nil
	})
}

// runRemove removes the barrier.
func runRemove(c *cli.Context) error {
	return simple(c, false, func(ctx context.Context, b *barrier.Barrier) error {
		err := b.Remove(ctx)
		if errors.Is(err, barrier.ErrNotSet) {
			return fmt.Errorf("no barrier at %s to remove", b.Path())
		}
		if err != nil {
			return err
		}
		fmt.Println("removed", b.Path())
		return nil
	})
}
