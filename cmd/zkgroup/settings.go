package main

import (
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/group"
)

// command is one of zkgroup's commands, with the flags every one takes.
// logLevel is its default: join, which runs for long, says what it lives
// through; the others only print their answer, unless something goes wrong.
func command(name, use, args, logLevel string, action cli.ActionFunc, extra ...cli.Flag) *cli.Command {
	flags := append([]cli.Flag{
		cmdline.ServersFlag(),
		cmdline.SessionTimeoutFlag(),
		&cli.StringFlag{Name: "timeout", Value: "15s", Usage: "give up when ZooKeeper has not answered in this long, a `duration` (not for join or --watch)"},
		cmdline.AuthFlag("only this identity may then join, leave or delete; an empty group right under / stays deletable by anyone, since a delete is checked against the parent (create 'apps', then 'apps/zoo')"),
		cmdline.LogLevelFlagDefault(logLevel),
	}, extra...)
	return &cli.Command{
		Name: name, Usage: use, ArgsUsage: args, UsageText: "zkgroup " + name + " [options] " + args,
		Flags: flags, Action: action, OnUsageError: onUsageError, Before: cmdline.TakenValues,
	}
}

func onUsageError(c *cli.Context, err error, isSub bool) error {
	return cmdline.OnUsageError(c, err, isSub)
}

// config is a command's settings after every flag and argument was checked.
type config struct {
	cmdline.ZooKeeper
	timeout time.Duration
	log     *slog.Logger
	name    string // the group as the user wrote it, for messages
	path    string // its znode
	member  string // join only
	metrics string // join's --metrics, "" when off
}

// parseConfig checks the flags and the arguments, before anything talks to
// ZooKeeper: bad input creates nothing. argNames are the arguments the
// command wants, GROUP first.
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
	if cfg.metrics, err = metrics.Parse(c); err != nil {
		return cfg, err
	}
	cfg.log = cfg.Logger()
	cfg.name = args[0]
	if cfg.path, err = group.ParseName(cfg.name); err != nil {
		return cfg, cmdline.Usage("%s", cmdline.Reason(err))
	}
	if len(args) > 1 {
		cfg.member = args[1]
		if err := group.ValidateMember(cfg.member); err != nil {
			return cfg, cmdline.Usage("%s", cmdline.Reason(err))
		}
	}
	return cfg, nil
}
