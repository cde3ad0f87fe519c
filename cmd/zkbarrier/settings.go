package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/recoverable"
)

// command is one of zkbarrier's commands, with the flags every one takes.
// logLevel is its default: wait and run, which wait, say what they wait
// for; set and remove only act, unless something goes wrong.
func command(name, use, args, logLevel string, action cli.ActionFunc, extra ...cli.Flag) *cli.Command {
	flags := append([]cli.Flag{
		cmdline.ServersFlag(),
		cmdline.SessionTimeoutFlag(),
		cmdline.AuthFlag("the barrier's znodes then only this identity may change"),
		cmdline.LogLevelFlagDefault(logLevel),
	}, extra...)
	return &cli.Command{
		Name: name, Usage: use, ArgsUsage: args, UsageText: "zkbarrier " + name + " [options] " + args,
		Flags: flags, Action: action, OnUsageError: cmdline.OnUsageError, Before: cmdline.TakenValues,
	}
}

// timeoutFlag is --timeout, of the commands that act and exit.
func timeoutFlag() cli.Flag {
	return &cli.StringFlag{Name: "timeout", Value: "15s", Usage: "give up when ZooKeeper has not answered in this long, a `duration`"}
}

// config is a command's settings after every flag and argument was checked.
type config struct {
	cmdline.ZooKeeper
	timeout time.Duration
	log     *slog.Logger
	path    string
	count   int      // run's --count
	name    string   // run's --name
	argv    []string // run's CMD
	metrics string   // run's --metrics, "" when off
}

// parse checks the flags and PATH of set, wait and remove, before anything
// talks to ZooKeeper: bad input creates nothing.
func parse(c *cli.Context) (config, error) {
	args, err := cmdline.Args(c, "PATH")
	if err != nil {
		return config{}, err
	}
	return parseCommon(c, args[0])
}

// parseCommon checks what every command takes: the ZooKeeper flags,
// PATH, and set's and remove's --timeout.
func parseCommon(c *cli.Context, path string) (config, error) {
	var cfg config
	var err error
	if cfg.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return cfg, err
	}
	if c.Command.Name == "set" || c.Command.Name == "remove" {
		if cfg.timeout, err = cmdline.PositiveDuration(c, "timeout"); err != nil {
			return cfg, err
		}
	}
	if err := recoverable.ValidatePath("PATH", path); err != nil {
		return cfg, cmdline.Usage("PATH %s", cmdline.Reason(err))
	}
	cfg.path, cfg.log = path, cfg.Logger()
	return cfg, nil
}

// parseRun checks run's flags, PATH and CMD.
func parseRun(c *cli.Context) (config, error) {
	args := c.Args().Slice()
	if len(args) == 0 {
		return config{}, cmdline.Usage("run: missing PATH (usage: zkbarrier run [options] --count N PATH -- CMD [ARGS...])")
	}
	if strings.HasPrefix(args[0], "-") {
		return config{}, cmdline.Usage("run: %s: flags go before PATH (see zkbarrier run --help)", args[0])
	}
	cfg, err := parseCommon(c, args[0])
	if err != nil {
		return cfg, err
	}
	if cfg.metrics, err = metrics.Parse(c); err != nil {
		return cfg, err
	}
	if !c.IsSet("count") {
		return cfg, cmdline.BadFlag("count", "missing: how many members to wait for")
	}
	if cfg.count, err = strconv.Atoi(c.String("count")); err != nil || cfg.count < 1 {
		return cfg, cmdline.BadFlag("count", "%q must be a whole number, 1 or more", c.String("count"))
	}
	cfg.name = c.String("name")
	if c.IsSet("name") && (cfg.name == "" || strings.HasPrefix(cfg.name, "-") || strings.ContainsFunc(cfg.name, unicode.IsControl)) {
		return cfg, cmdline.BadFlag("name", "%q must be non-empty, not start with -, without control characters", cfg.name)
	}
	if cfg.name == "" {
		host, _ := os.Hostname()
		cfg.name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	cfg.argv = args[1:]
	if len(cfg.argv) > 0 && cfg.argv[0] == "--" {
		cfg.argv = cfg.argv[1:] // urfave/cli keeps a -- that follows an argument
	}
	if len(cfg.argv) == 0 {
		return cfg, cmdline.Usage("run: no command to run: zkbarrier run [options] --count N PATH -- CMD [ARGS...]")
	}
	if _, err := exec.LookPath(cfg.argv[0]); err != nil {
		return cfg, cmdline.Usage("CMD: %v", err)
	}
	return cfg, nil
}
