package main

import (
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// command is one of zkqueue's commands, with the flags every one takes.
func command(name, use, args, logLevel string, action cli.ActionFunc, extra ...cli.Flag) *cli.Command {
	flags := append([]cli.Flag{
		cmdline.ServersFlag(),
		cmdline.SessionTimeoutFlag(),
		&cli.StringFlag{Name: "timeout", Value: "15s", Usage: "give up when ZooKeeper has not answered in this long, a `duration` (put and list; take waits as long as it takes)"},
		cmdline.AuthFlag("the queue's znodes are then open to this identity only"),
		cmdline.LogLevelFlagDefault(logLevel),
	}, extra...)
	return &cli.Command{
		Name: name, Usage: use, ArgsUsage: args, UsageText: "zkqueue " + name + " [options] " + args,
		Flags: flags, Action: action, OnUsageError: onUsageError, Before: cmdline.TakenValues,
	}
}

func onUsageError(c *cli.Context, err error, isSub bool) error {
	return cmdline.OnUsageError(c, err, isSub)
}

// config is a command's settings after every flag and argument was checked.
type config struct {
	cmdline.ZooKeeper
	timeout  time.Duration
	log      *slog.Logger
	path     string
	value    string // put
	priority int    // put
	follow   bool   // take
	delivery queue.Delivery
	work     time.Duration
	metrics  string // take --follow's --metrics, "" when off
}

// parseConfig checks the flags and the arguments before anything talks to
// ZooKeeper: bad input creates nothing.
func parseConfig(c *cli.Context, argNames ...string) (config, error) {
	var cfg config
	args, err := cmdline.Args(c, argNames...)
	if err != nil {
		return cfg, err
	}
	if cfg.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return cfg, err
	}
	if cfg.timeout, err = cmdline.PositiveDuration(c, "timeout"); err != nil {
		return cfg, err
	}
	cfg.log = cfg.Logger()
	cfg.path = args[0]
	if err := recoverable.ValidatePath("P", cfg.path); err != nil {
		return cfg, cmdline.Usage("%s", err)
	}
	if len(args) > 1 {
		cfg.value = args[1]
	}
	return cfg, parseCommandFlags(c, &cfg)
}

// parseCommandFlags checks the flags of one command.
func parseCommandFlags(c *cli.Context, cfg *config) error {
	var err error
	switch c.Command.Name {
	case "put":
		cfg.priority = c.Int("priority")
		if cfg.priority < 0 || cfg.priority > queue.MaxPriority {
			return cmdline.BadFlag("priority", "%d is outside 0 to %d", cfg.priority, queue.MaxPriority)
		}
	case "take":
		cfg.follow = c.Bool("follow")
		switch c.String("delivery") {
		case "at-most-once":
			cfg.delivery = queue.AtMostOnce
		case "at-least-once":
			cfg.delivery = queue.AtLeastOnce
		default:
			return cmdline.BadFlag("delivery", "%q is neither at-most-once nor at-least-once", c.String("delivery"))
		}
		if cfg.work, err = cmdline.Duration(c, "work"); err != nil {
			return err
		}
		if cfg.work < 0 {
			return cmdline.BadFlag("work", "%v is negative", cfg.work)
		}
		if cfg.metrics, err = metrics.Parse(c); err != nil {
			return err
		}
		if cfg.metrics != "" && !cfg.follow {
			return cmdline.BadFlag("metrics", "only with --follow: a single take ends before anyone scrapes it")
		}
	}
	return nil
}
