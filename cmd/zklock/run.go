package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/election"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// settings are zklock's flags, checked.
type settings struct {
	servers []string
	path    string
	name    string
	session time.Duration
	policy  nodemonitor.Policy
	grace   time.Duration
	auth    string
	level   slog.Level
	argv    []string
}

func parse(c *cli.Context) (settings, error) {
	s := settings{path: c.String("path"), name: c.String("name"), argv: c.Args().Slice()}
	var err error
	if len(s.argv) == 0 {
		return s, cmdline.Usage("no command to run: zklock [options] -- CMD [ARGS...]")
	}
	if s.servers, err = cmdline.ParseServers(c.String("servers")); err != nil {
		return s, err
	}
	if err := nodemonitor.ValidatePath(s.path); err != nil {
		return s, cmdline.BadFlag("path", "%q is not a znode path: %v", s.path, err)
	}
	if s.session, err = cmdline.PositiveDuration(c, "session-timeout"); err != nil {
		return s, err
	}
	if s.grace, err = cmdline.Duration(c, "grace"); err != nil || s.grace < 0 {
		return s, cmdline.BadFlag("grace", "%q must be a duration, 0 or more", c.String("grace"))
	}
	if s.policy, err = nodemonitor.ParsePolicy(c.String("policy")); err != nil {
		return s, cmdline.BadFlag("policy", "unknown value %q (want at-most-one or at-least-one)", c.String("policy"))
	}
	if s.auth, err = cmdline.ParseAuth(c); err != nil {
		return s, err
	}
	if s.level, err = cmdline.ParseLogLevel(c); err != nil {
		return s, err
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
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: s.level})).With("name", s.name)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	auth, acl := recoverable.Access(s.auth)
	rz, err := recoverable.Connect(s.servers, s.session, append([]recoverable.Option{recoverable.WithLogger(log)}, auth...)...)
	if err != nil {
		return err
	}
	defer rz.Close()
	defer cmdline.SayWhileUnreachable(ctx, log, rz, s.servers, s.session)() // before rz.Close
	lk := lock.New(rz, s.path, s.name, nodemonitor.WithPolicy(s.policy), nodemonitor.WithACL(acl), nodemonitor.WithLogger(log))
	defer lk.Unlock()
	log.Info("waiting for the lock", "path", s.path)
	if err := lk.Lock(ctx); err != nil {
		if ctx.Err() != nil {
			return cli.Exit("zklock: interrupted while waiting for the lock", 130)
		}
		return cmdline.ExplainNoAuth(err)
	}
	log.Info("holding the lock; starting CMD", "epoch", lk.Epoch(), "cmd", s.argv[0])
	status, why := supervise(ctx, log, rz, lk, s)
	lk.Unlock()
	log.Info("released the lock", "cmd_status", status, "because", why)
	if status != 0 {
		return cli.Exit("", status)
	}
	return nil
}

// supervise runs CMD under the watchdog and keeps its deadline moving
// while the lock is held; it returns CMD's status and why CMD ended.
func supervise(ctx context.Context, log *slog.Logger, rz *recoverable.RecoverableZookeeper, lk *lock.Lock, s settings) (int, string) {
	r, w, err := os.Pipe()
	if err != nil {
		log.Error("cannot start CMD", "error", err)
		return 1, "a pipe could not be made"
	}
	defer w.Close()
	exe, err := os.Executable()
	if err != nil {
		r.Close()
		return 1, err.Error()
	}
	// margin keeps CMD's end ahead of the servers' expiry of our session,
	// for timer and scheduling delays and the drift between clocks.
	margin := rz.SessionTimeout() / 10
	deadline := func() time.Time { return rz.AliveUntil().Add(-margin) }
	if election.BrokenForChaos {
		deadline = func() time.Time { return time.Now().Add(time.Hour) } // no watchdog: see BrokenForChaos
	}
	// last is the latest deadline the watchdog has been given; the first
	// goes before CMD starts, so that CMD is never unguarded.
	last := deadline()
	if err := sendDeadline(w, last); err != nil {
		r.Close()
		return 1, err.Error()
	}
	wd := exec.Command(exe, s.argv...)
	wd.Stdin, wd.Stdout, wd.Stderr = os.Stdin, os.Stdout, os.Stderr
	wd.ExtraFiles = []*os.File{r}
	wd.Env = append(os.Environ(), watchdogEnv+"="+strconv.FormatInt(int64(s.grace), 10),
		"ZKLOCK_EPOCH="+strconv.FormatInt(lk.Epoch(), 10), "ZKLOCK_PATH="+s.path)
	if err := wd.Start(); err != nil {
		r.Close()
		return 1, err.Error()
	}
	r.Close()
	done := make(chan int, 1)
	go func() { done <- exitStatus(wd.Wait()) }()

	tick := time.NewTicker(rz.SessionTimeout() / 10)
	defer tick.Stop()
	lost, ticks := lk.Lost(), tick.C
	why := "CMD exited"
	// frozen reports, once we run again, that we were stopped past the
	// deadline the watchdog holds: it has killed CMD, whatever news comes
	// first now that we are let go, CMD's end or the lock's loss.
	frozen := func() bool { return ticks != nil && time.Now().After(last) }
	const watchdogWhy = "the watchdog stopped CMD: zklock stopped renewing its deadline (frozen?)"
	for {
		select {
		case status := <-done:
			if frozen() {
				why = watchdogWhy
			}
			return status, why
		case <-ticks:
			last = deadline()
			_ = sendDeadline(w, last)
		case <-lost:
			if frozen() {
				log.Warn("the lock is lost, and CMD with it: zklock could not renew CMD's deadline (frozen?), so the watchdog stopped CMD at "+
					last.Format(time.TimeOnly+".000")+", before anyone else could hold the lock", "deadline", last)
				why, lost, ticks = watchdogWhy, nil, nil
				w.Close()
				continue
			}
			log.Warn("the lock is lost: stopping CMD before anyone else can hold it")
			why, lost, ticks = "the lock was lost", nil, nil
			w.Close() // the watchdog stops CMD: SIGTERM, then SIGKILL by the deadline
		case <-ctx.Done():
			log.Info("asked to stop: stopping CMD, then releasing the lock")
			why, ctx, ticks = "zklock was asked to stop", context.Background(), nil
			w.Close()
		}
	}
}
