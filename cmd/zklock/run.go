package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/metrics"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// settings are zklock's flags, checked.
type settings struct {
	cmdline.ZooKeeper
	path    string
	name    string
	policy  nodemonitor.Policy
	grace   time.Duration
	argv    []string
	metrics string // --metrics, "" when off
}

func parse(c *cli.Context) (settings, error) {
	s := settings{path: c.String("path"), name: c.String("name"), argv: c.Args().Slice()}
	var err error
	if len(s.argv) == 0 {
		return s, cmdline.Usage("no command to run: zklock [options] -- CMD [ARGS...]")
	}
	if s.ZooKeeper, err = cmdline.ParseZooKeeper(c); err != nil {
		return s, err
	}
	if s.metrics, err = metrics.Parse(c); err != nil {
		return s, err
	}
	if err := recoverable.ValidatePath("path", s.path); err != nil {
		return s, cmdline.BadFlag("path", "%s", cmdline.Reason(err))
	}
	if s.grace, err = cmdline.Duration(c, "grace"); err != nil || s.grace < 0 {
		return s, cmdline.BadFlag("grace", "%q must be a duration, 0 or more", c.String("grace"))
	}
	if s.policy, err = nodemonitor.ParsePolicy(c.String("policy")); err != nil {
		return s, cmdline.BadFlag("policy", "unknown value %q (want at-most-one or at-least-one)", c.String("policy"))
	}
	if c.IsSet("name") {
		// zkCli.sh and zkview show the name as one line; and a name that
		// starts with - is most likely --name's value forgotten, as in
		// --name -- CMD, which would otherwise run CMD under the name "--".
		switch {
		case strings.HasPrefix(s.name, "-"):
			return s, cmdline.BadFlag("name", "%q looks like a flag, not a name: give --name a value", s.name)
		case s.name == "" || strings.ContainsFunc(s.name, unicode.IsControl):
			return s, cmdline.BadFlag("name", "%q must be non-empty, without control characters", s.name)
		}
	}
	if s.name == "" {
		host, _ := os.Hostname()
		s.name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if _, err := exec.LookPath(s.argv[0]); err != nil {
		return s, cmdline.Usage("CMD: %v", err)
	}
	return s, nil
}

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
	rz, acl, err := s.Connect(log)
	if err != nil {
		return err
	}
	defer rz.Close()
	defer cmdline.SayWhileUnreachable(ctx, log, rz, s.Servers, s.SessionTimeout)() // before rz.Close
	lk := lock.New(rz, s.path, s.name, lock.WithPolicy(s.policy), lock.WithACL(acl), lock.WithLogger(log))
	release := sync.OnceFunc(func() { unlock(lk, rz, log) })
	defer release() // on the way out early
	// The metrics last until zklock returns, not until the signal: during
	// the grace that follows it, CMD still runs under the lock.
	life, endLife := context.WithCancel(context.Background())
	defer endLife()
	registerLock(life, ms, rz, lk)
	defer ms.Serve(life)()
	log.Info("waiting for the lock", "path", s.path)
	if err := lk.Lock(ctx); err != nil {
		if ctx.Err() != nil {
			return cli.Exit("zklock: interrupted while waiting for the lock", 130)
		}
		return cmdline.ExplainNoAuth(err)
	}
	log.Info("holding the lock; starting CMD", "epoch", lk.Epoch(), "cmd", s.argv[0])
	status, why := supervise(ctx, log, rz, lk, s)
	release()
	log.Info("released the lock", "cmd_status", status, "because", why)
	if status != 0 {
		return cli.Exit("", status)
	}
	return nil
}

// unlock releases lk, and says so when its znode could not be deleted. It
// waits at most a session timeout: cut off from ZooKeeper for longer, our
// session expires, and the znode with it.
func unlock(lk *lock.Lock, rz *recoverable.RecoverableZookeeper, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), rz.SessionTimeout())
	defer cancel()
	if err := lk.Unlock(ctx); err != nil {
		log.Warn("could not delete our znode; the next in line waits until our session ends", "error", err)
	}
}
