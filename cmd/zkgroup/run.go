package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// session connects and waits for the session; the caller closes the
// client. A command that does one thing and exits (create, list, delete)
// fails at once when no ZooKeeper answers, and ctx, bounded by --timeout,
// bounds its wait; one that runs until stopped (join, list --watch) waits
// for ZooKeeper as long as it takes, saying so, as the speaker does.
func session(ctx context.Context, cfg config, runsUntilStopped bool) (*recoverable.RecoverableZookeeper, *group.Group, error) {
	rz, err := cfg.Session(ctx, cfg.log, runsUntilStopped)
	if err != nil {
		return nil, nil, err
	}
	g, err := group.New(rz, cfg.name)
	if err != nil {
		rz.Close()
		return nil, nil, err
	}
	return rz, g, nil
}

// oneShot runs op on a fresh session, bounded by --timeout and by Ctrl-C.
func oneShot(c *cli.Context, cfg config, op func(context.Context, *group.Group) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	rz, g, err := session(ctx, cfg, false)
	if err != nil {
		return explain(cfg, timedOut(cfg, err))
	}
	defer rz.Close()
	return explain(cfg, timedOut(cfg, op(ctx, g)))
}

// timedOut says which flag bounded the wait, rather than "context deadline
// exceeded".
func timedOut(cfg config, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("ZooKeeper did not answer within --timeout %v", cfg.timeout)
	}
	return err
}

// runCreate is the chapter's CreateGroup.
func runCreate(c *cli.Context) error {
	cfg, err := parseConfig(c, "GROUP")
	if err != nil {
		return err
	}
	return oneShot(c, cfg, func(ctx context.Context, g *group.Group) error {
		if err := g.Create(ctx); err != nil {
			return err
		}
		fmt.Println("created", g.Path())
		return nil
	})
}

// runList is the chapter's ListGroup, or with --watch, what it could do
// with the watch it leaves unused.
func runList(c *cli.Context) error {
	cfg, err := parseConfig(c, "GROUP")
	if err != nil {
		return err
	}
	if c.Bool("watch") {
		return runWatch(cfg)
	}
	return oneShot(c, cfg, func(ctx context.Context, g *group.Group) error {
		members, err := g.List(ctx)
		if err != nil {
			return err
		}
		if len(members) == 0 {
			// On stderr: stdout is the list, and an empty list is empty.
			fmt.Fprintf(os.Stderr, "%s has no members\n", cfg.name)
		}
		for _, m := range members {
			fmt.Println(m)
		}
		return nil
	})
}

// runDelete is the chapter's DeleteGroup, made atomic.
func runDelete(c *cli.Context) error {
	cfg, err := parseConfig(c, "GROUP")
	if err != nil {
		return err
	}
	return oneShot(c, cfg, func(ctx context.Context, g *group.Group) error {
		members, err := g.Delete(ctx)
		if err != nil {
			return err
		}
		if len(members) == 0 {
			fmt.Printf("deleted %s, which had no members\n", g.Path())
		} else {
			fmt.Printf("deleted %s and its %d member(s): %s\n", g.Path(), len(members), strings.Join(members, " "))
		}
		return nil
	})
}

func is(err, target error) bool { return errors.Is(err, target) }
