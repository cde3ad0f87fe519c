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

	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// connect opens a session. put and list fail at once when no ZooKeeper
// answers, bounded by --timeout; take waits for ZooKeeper as long as it
// takes, saying so, as it waits for items.
func connect(ctx context.Context, cfg config, waits bool) (*recoverable.RecoverableZookeeper, error) {
	return cfg.Session(ctx, cfg.log, waits)
}

// oneShot runs op on a fresh session, bounded by --timeout and by Ctrl-C.
func oneShot(cfg config, op func(context.Context, *recoverable.RecoverableZookeeper) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	rz, err := connect(ctx, cfg, false)
	if err != nil {
		return explain(cfg, err)
	}
	defer rz.Close()
	return explain(cfg, op(ctx, rz))
}

// explain turns the recipe's errors into the one line a person reads.
func explain(cfg config, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("ZooKeeper did not answer within --timeout %v", cfg.timeout)
	case errors.Is(err, queue.ErrNoQueue):
		return fmt.Errorf("no queue at %s", cfg.path)
	case errors.Is(err, queue.ErrUnsettled):
		return fmt.Errorf("%s: the reply was lost and ZooKeeper could not be asked in time whether it went in; `zkqueue list %s` shows the queue", cfg.path, cfg.path)
	case errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("not allowed by the ACL of %s: %w (give --auth user:password of its creator)", cfg.path, err)
	}
	return err
}

// runPut puts VALUE and says the item's name once it is in.
func runPut(c *cli.Context) error {
	cfg, err := parseConfig(c, "P", "VALUE")
	if err != nil {
		return err
	}
	return oneShot(cfg, func(ctx context.Context, rz *recoverable.RecoverableZookeeper) error {
		q, err := queue.New(ctx, rz, cfg.path)
		if err != nil {
			return err
		}
		name, err := q.PutPriority(ctx, []byte(cfg.value), cfg.priority)
		// A signal ended ctx: the ledger's delete gets closeTimeout of its
		// own, or the ledger would wait for a reaper.
		bye, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		if cerr := q.Close(bye); err == nil && cerr != nil {
			cfg.log.Warn("could not delete this producer's ledger", "error", cerr)
		}
		if err != nil {
			return err
		}
		cfg.log.Info("the item is in the queue", "item", name, "value", cfg.value, "priority", cfg.priority)
		if name == "" {
			name = "(its reply was lost; the ledger says it went in)"
		}
		fmt.Println("put", cfg.path+"/"+name)
		return nil
	})
}

// runList prints the items in the order of takes.
func runList(c *cli.Context) error {
	cfg, err := parseConfig(c, "P")
	if err != nil {
		return err
	}
	return oneShot(cfg, func(ctx context.Context, rz *recoverable.RecoverableZookeeper) error {
		entries, err := queue.List(ctx, rz, cfg.path)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			fmt.Fprintf(os.Stderr, "%s is empty\n", cfg.path)
		}
		for _, e := range entries {
			claimed := ""
			if e.Claimed {
				claimed = "  (claimed)"
			}
			fmt.Printf("%s  priority %d  %q%s\n", e.Name, e.Priority, e.Value, claimed)
		}
		return nil
	})
}
