package main

import (
	"strconv"
	"time"
	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"

	"github.com/urfave/cli/v2"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// config is the speaker's settings after every flag was checked.
type config struct {
	cmdline.ZooKeeper
	election electionKind
	path     string
	interval time.Duration
	out      string
	name     string
	watch    nodemonitor.WatchMode
	policy   nodemonitor.Policy
	retry    recoverable.RetryCounterFactory
	fsync    bool
	fence    bool
	metrics  string // --metrics, "" when off
}

// badFlag is bad input in one flag (cmdline.BadFlag).
func badFlag(flag, format string, args ...any) error { return cmdline.BadFlag(flag, format, args...) }

// parseConfig checks every flag before anything is created in ZooKeeper or
// written to disk. The out file is checked last, because checking it may
// create it.
func parseConfig(c *cli.Context) (config, error) {
	cfg := config{
		name:  c.String("name"),
		fsync: c.Bool("fsync"),
		fence: c.Bool("fence"),
		out:   c.String("out"),
	}
	var err error
	if cfg.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return cfg, err
	}
	if cfg.metrics, err = metrics.Parse(c); err != nil {
		return cfg, err
	}
	if cfg.interval, err = positiveDuration(c, "interval"); err != nil {
		return cfg, err
	}
	if cfg.election, cfg.path, err = parseElection(c); err != nil {
		return cfg, err
	}
	if !cfg.election.hasWatch && c.IsSet("watch") {
		return cfg, badFlag("watch", "does not apply to --election %s", cfg.election.name)
	}
	if cfg.watch, err = nodemonitor.ParseWatchMode(c.String("watch")); err != nil {
		return cfg, badFlag("watch", "unknown value %q (want predecessor or children)", c.String("watch"))
	}
	if cfg.policy, err = nodemonitor.ParsePolicy(c.String("policy")); err != nil {
		return cfg, badFlag("policy", "unknown value %q (want at-most-one or at-least-one)", c.String("policy"))
	}
	if c.IsSet("name") {
		if err := speaker.ValidateName(cfg.name); err != nil {
			return cfg, badFlag("name", "%q must be non-empty, without whitespace or control characters", cfg.name)
		}
	} else {
		cfg.name = ""
	}
	// The fence is on by default under at-most-one: a confirmed answer can
	// be overtaken by a delete on its way back, and only the fence stops the
	// line that would follow (docs/policies.md).
	if cfg.policy != nodemonitor.AtMostOne {
		if c.IsSet("fence") && cfg.fence {
			return cfg, badFlag("fence", "needs --policy at-most-one, whose confirm supplies the epoch")
		}
		cfg.fence = false
	}
	if cfg.retry, err = parseRetry(c); err != nil {
		return cfg, err
	}
	if cfg.out == "" {
		return cfg, badFlag("out", "must not be empty")
	}
	if err := speaker.Check(cfg.out); err != nil {
		return cfg, badFlag("out", "%s", cmdline.Reason(err))
	}
	return cfg, nil
}

// parseElection checks --election and --path; the path defaults to the
// recipe's own.
func parseElection(c *cli.Context) (kind electionKind, path string, err error) {
	if kind, err = lookupKind(c.String("election")); err != nil {
		return kind, "", err
	}
	path = kind.defaultPath
	if c.IsSet("path") {
		path = c.String("path")
	}
	if err := recoverable.ValidatePath("path", path); err != nil {
		return kind, "", badFlag("path", "%s", cmdline.Reason(err))
	}
	return kind, path, nil
}

func parseServers(s string) ([]string, error) { return cmdline.ParseServers(s) }

func positiveDuration(c *cli.Context, flag string) (time.Duration, error) {
	return cmdline.PositiveDuration(c, flag)
}

func duration(c *cli.Context, flag string) (time.Duration, error) { return cmdline.Duration(c, flag) }

func parseRetry(c *cli.Context) (recoverable.RetryCounterFactory, error) {
	f := recoverable.DefaultRetryCounterFactory()
	n, err := strconv.Atoi(c.String("retries"))
	if err != nil || n < 0 {
		return f, badFlag("retries", "%q must be a whole number, 0 or more", c.String("retries"))
	}
	f.MaxRetries = n
	if f.Interval, err = positiveDuration(c, "retry-interval"); err != nil {
		return f, err
	}
	if f.MaxSleep, err = duration(c, "retry-max-sleep"); err != nil {
		return f, err
	}
	if f.MaxSleep < 0 {
		return f, badFlag("retry-max-sleep", "must not be negative, got %s", c.String("retry-max-sleep"))
	}
	return f, nil
}
