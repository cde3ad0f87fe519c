package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/queue"
)

// closeTimeout bounds the goodbye on a signal: the ledger's delete, then
// the session's close. With ZooKeeper out of reach the process must exit.
const closeTimeout = 2 * time.Second

// runTake takes one item, or with --follow items until stopped, and prints
// each value on a line of its own.
func runTake(c *cli.Context) error {
	cfg, err := parseConfig(c, "P")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ms, err := metrics.Listen(cfg.metrics, cfg.log) // first: a port in use starts nothing
	if err != nil {
		return err
	}
	defer ms.Close()
	rz, err := connect(ctx, cfg, true)
	if err != nil {
		return quiet(ctx, explain(cfg, err))
	}
	defer rz.Close()
	q, err := queue.New(ctx, rz, cfg.path, queue.WithDelivery(cfg.delivery))
	if err != nil {
		return quiet(ctx, explain(cfg, err))
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		_ = q.Close(ctx)
	}()
	counts := registerTaker(ctx, ms, rz, cfg.delivery)
	defer ms.Serve(ctx)()
	cfg.log.Info("taking items", "queue", cfg.path, "delivery", cfg.delivery, "follow", cfg.follow)
	out := bufio.NewWriter(os.Stdout)
	for {
		err := takeOne(ctx, cfg, q, out, counts)
		if !cfg.follow || err != nil {
			return quiet(ctx, explain(cfg, err))
		}
	}
}

// takeOne takes an item, prints it, works on it (--work), and under
// at-least-once acknowledges it after that: a process killed before the
// Ack leaves the item to another consumer.
func takeOne(ctx context.Context, cfg config, q *queue.Queue, out *bufio.Writer, counts *takerMetrics) error {
	it, err := q.Take(ctx)
	if err != nil {
		return err
	}
	cfg.log.Info("took an item", "item", it.Name, "value", string(it.Value), "priority", it.Priority, "delivery", cfg.delivery)
	fmt.Fprintf(out, "%s\n", it.Value)
	if err := out.Flush(); err != nil {
		return err
	}
	select {
	case <-time.After(cfg.work):
	case <-ctx.Done():
		// Stopped mid-work: under at-least-once the item goes back.
		rctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if it.Release(rctx) == nil && cfg.delivery == queue.AtLeastOnce {
			cfg.log.Info("stopped before the work was done; gave the item back", "item", it.Name)
		}
		return ctx.Err()
	}
	// The work is done: the Ack waits for ZooKeeper as the take did, and
	// a signal gives it closeTimeout more, so that an Ack that applied is
	// also said.
	actx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer context.AfterFunc(ctx, func() { time.AfterFunc(closeTimeout, cancel) })()
	err = it.Ack(actx)
	if errors.Is(err, queue.ErrClaimLost) {
		counts.claimLost()
		cfg.log.Warn("the claim ended before the work was done (the session expired): another consumer may take the item again", "item", it.Name, "value", string(it.Value))
		return nil
	}
	if errors.Is(err, queue.ErrUnsettled) {
		cfg.log.Warn("the Ack's reply was lost and whether it went in is not known: the item may be deleted, or back in the queue", "item", it.Name, "value", string(it.Value))
	}
	if err != nil {
		return err
	}
	counts.taken()
	if cfg.delivery == queue.AtLeastOnce {
		cfg.log.Info("acknowledged the item: it is deleted", "item", it.Name, "value", string(it.Value))
	}
	return nil
}

// quiet drops the error of a take stopped by a signal: stopping is no
// failure.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
