package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/speaker"
)

// config is the speaker's settings after every flag was checked.
type config struct {
	servers        []string
	election       electionKind
	path           string
	interval       time.Duration
	out            string
	name           string
	sessionTimeout time.Duration
	watch          nodemonitor.WatchMode
	policy         nodemonitor.Policy
	retry          recoverable.RetryCounterFactory
	fsync          bool
	fence          bool
	auth           string
	logLevel       slog.Level
}

// usageError is bad input: the command prints it on one line and exits 2.
type usageError struct{ msg string }

// Error returns the one line to print.
func (e usageError) Error() string { return e.msg }

// flagEnv names the environment variable a flag may come from, so that an
// error can point at it: an exported ZK_SERVERS is easy to forget.
var flagEnv = map[string]string{"servers": "ZK_SERVERS", "auth": "ZK_AUTH"}

// badFlag is bad input in one flag, named as the user may have typed it.
func badFlag(flag, format string, args ...any) error {
	name := "--" + flag
	if env, ok := flagEnv[flag]; ok {
		if _, set := os.LookupEnv(env); set {
			name += " (or $" + env + ")"
		}
	}
	return usageError{name + ": " + fmt.Sprintf(format, args...)}
}

// parseConfig checks every flag before anything is created in ZooKeeper or
// written to disk. The out file is checked last, because checking it may
// create it.
func parseConfig(c *cli.Context) (config, error) {
	cfg := config{
		name:  c.String("name"),
		fsync: c.Bool("fsync"),
		fence: c.Bool("fence"),
		auth:  c.String("auth"),
		out:   c.String("out"),
	}
	var err error
	if cfg.servers, err = parseServers(c.String("servers")); err != nil {
		return cfg, err
	}
	if cfg.interval, err = positiveDuration(c, "interval"); err != nil {
		return cfg, err
	}
	if cfg.sessionTimeout, err = positiveDuration(c, "session-timeout"); err != nil {
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
	// line that would follow (README: "Policies").
	if cfg.policy != nodemonitor.AtMostOne {
		if c.IsSet("fence") && cfg.fence {
			return cfg, badFlag("fence", "needs --policy at-most-one, whose confirm supplies the epoch")
		}
		cfg.fence = false
	}
	if cfg.auth != "" {
		user, password, ok := strings.Cut(cfg.auth, ":")
		if !ok || user == "" || password == "" || strings.ContainsFunc(cfg.auth, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			// Never echo the value: it holds a password.
			return cfg, badFlag("auth", "must be user:password, both non-empty, without whitespace")
		}
	}
	if cfg.retry, err = parseRetry(c); err != nil {
		return cfg, err
	}
	if err := cfg.logLevel.UnmarshalText([]byte(c.String("log-level"))); err != nil {
		return cfg, badFlag("log-level", "unknown value %q (want debug, info, warn or error)", c.String("log-level"))
	}
	if cfg.out == "" {
		return cfg, badFlag("out", "must not be empty")
	}
	if err := speaker.Check(cfg.out); err != nil {
		return cfg, badFlag("out", "%s", strings.TrimPrefix(err.Error(), "speaker: "))
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
	if err := nodemonitor.ValidatePath(path); err != nil {
		return kind, "", badFlag("path", "%s", strings.TrimPrefix(err.Error(), nodemonitor.ErrInvalid.Error()+": "))
	}
	return kind, path, nil
}

// parseServers checks a connection string: host:port entries, commas between.
func parseServers(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, badFlag("servers", "must not be empty (e.g. 127.0.0.1:2181)")
	}
	var out []string
	for _, entry := range strings.Split(s, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(entry))
		if err != nil || host == "" {
			return nil, badFlag("servers", "%q is not host:port", entry)
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, badFlag("servers", "%q: port must be a number from 1 to 65535", entry)
		}
		out = append(out, net.JoinHostPort(host, port))
	}
	return out, nil
}

func positiveDuration(c *cli.Context, flag string) (time.Duration, error) {
	d, err := duration(c, flag)
	if err == nil && d <= 0 {
		err = badFlag(flag, "must be positive, got %s", c.String(flag))
	}
	return d, err
}

func duration(c *cli.Context, flag string) (time.Duration, error) {
	d, err := time.ParseDuration(c.String(flag))
	if err != nil {
		return 0, badFlag(flag, "%q is not a duration (e.g. 500ms, 2s)", c.String(flag))
	}
	return d, nil
}

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
