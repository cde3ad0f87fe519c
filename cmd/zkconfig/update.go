package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

func updateCommand() *cli.Command {
	retry := defaultUpdateRetry()
	return &cli.Command{
		Name:      "update",
		Usage:     "write a random value (0 to 99) to KEY every few seconds, printing each: the chapter's ConfigUpdater",
		ArgsUsage: "KEY",
		Flags: append(commonFlags("info"),
			&cli.StringFlag{Name: "every", Value: "5s", Usage: "time between writes, a `duration` above 0"},
			&cli.BoolFlag{Name: "resilient", Usage: "write again after a connection loss and carry on after a session expiry (ResilientConfigUpdater); without it a write that loses its connection, or an expiry, ends the command (a reconnect between writes does not)"},
			&cli.StringFlag{Name: "retries", Value: strconv.Itoa(retry.MaxRetries), Usage: "with --resilient: how often one write is tried again after connection losses, 0 or more"},
			&cli.StringFlag{Name: "retry-interval", Value: retry.Interval.String(), Usage: "with --resilient: base of the backoff between those tries, a `duration` above 0"},
		),
		Action: runUpdate,
	}
}

// defaultUpdateRetry is --resilient's backoff: from 200 ms, doubling, each
// sleep at most 2 s. Ten retries ride out a leader election on a busy
// machine; a request made while disconnected waits for the reconnect
// without using one.
func defaultUpdateRetry() recoverable.RetryCounterFactory {
	return recoverable.RetryCounterFactory{MaxRetries: 10, Interval: 100 * time.Millisecond, MaxSleep: 2 * time.Second, Jitter: 0.2}
}

// noRetries makes each request of the client a single attempt: the retries
// of update are the Store's own, over the whole write, as in the chapter.
var noRetries = recoverable.RetryCounterFactory{MaxRetries: 0, Interval: time.Millisecond}

func runUpdate(c *cli.Context) error {
	a, err := args(c, "KEY")
	if err != nil {
		return err
	}
	s, err := parseSettings(c)
	if err != nil {
		return err
	}
	u := updater{key: a[0], out: os.Stdout, resilient: c.Bool("resilient"), value: func() string { return strconv.Itoa(rand.IntN(100)) }}
	if u.every, err = cmdline.PositiveDuration(c, "every"); err != nil {
		return err
	}
	var storeOpts []config.Option
	if u.resilient {
		retry := defaultUpdateRetry()
		n, err := strconv.Atoi(c.String("retries"))
		if err != nil || n < 0 {
			return cmdline.BadFlag("retries", "%q must be a whole number, 0 or more", c.String("retries"))
		}
		retry.MaxRetries = n
		if retry.Interval, err = cmdline.PositiveDuration(c, "retry-interval"); err != nil {
			return err
		}
		storeOpts = append(storeOpts, config.WithRetry(retry))
	} else {
		for _, flag := range []string{"retries", "retry-interval"} {
			if c.IsSet(flag) {
				return cmdline.BadFlag(flag, "applies only with --resilient: the plain updater never retries")
			}
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	u.log = s.Logger()
	rz, store, err := s.connect(u.log, noRetries, storeOpts...)
	if err != nil {
		return err
	}
	defer closeWithin(rz, u.log, time.Second)
	u.rz, u.store = rz, store
	// The first write waits for a session: a plain updater that ZooKeeper
	// never answered has lost no connection.
	if err := cmdline.AwaitSession(ctx, u.log, rz, s.Servers, s.SessionTimeout); err != nil {
		return quiet(ctx, err) // nothing to say after Ctrl-C
	}
	u.path, _ = store.Path(u.key)
	mode := "plain: a write that loses its connection, or a session expiry, ends it"
	if u.resilient {
		mode = "resilient: writes again after a connection loss, carries on after a session expiry"
	}
	u.log.Info("updating "+u.path, "every", u.every, "mode", mode)
	return cmdline.ExplainNoAuth(u.run(ctx))
}

// updater is the chapter's ConfigUpdater, and with resilient set its
// ResilientConfigUpdater.
type updater struct {
	rz        *recoverable.RecoverableZookeeper
	store     *config.Store
	key, path string
	every     time.Duration
	resilient bool
	value     func() string // the next value to write
	out       io.Writer
	log       *slog.Logger
}

// run writes at once, then every u.every after the last write ended, until
// ctx is done (nil) or a fault it does not survive (the error).
func (u *updater) run(ctx context.Context) error {
	// The session's events come here too: go-zookeeper replaces an expired
	// session without a word to the requests, so this is where the plain
	// updater learns that its session is gone.
	observing, cancel := context.WithCancel(ctx)
	defer cancel() // before the session closes: Close waits for its observers
	events := u.rz.Observe(observing)
	next := time.NewTimer(0)
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil
			}
			if err := u.sessionChanged(ev); err != nil {
				return err
			}
		case <-next.C:
			again, err := u.write(ctx)
			if err != nil || ctx.Err() != nil {
				return err
			}
			if again {
				next.Reset(0)
			} else {
				next.Reset(u.every)
			}
		}
	}
}

// sessionChanged ends the plain updater when its session expired. The
// chapter's first ConfigUpdater dies of the SessionExpiredException of its
// next write; go-zookeeper would instead run that write in a new session,
// so we stop on the event. The resilient one logs it and carries on, where
// the chapter's main loop builds a new ResilientConfigUpdater.
func (u *updater) sessionChanged(ev recoverable.SessionEvent) error {
	if ev.State != recoverable.StateExpired {
		return nil
	}
	if !u.resilient {
		return fmt.Errorf("%w (session 0x%x): the plain updater stops here, as the chapter's first ConfigUpdater does; --resilient carries on in a new session",
			config.ErrSessionExpired, ev.SessionID)
	}
	u.log.Warn("session expired; carrying on in the new session that go-zookeeper opens", "session", fmt.Sprintf("0x%x", ev.SessionID))
	return nil
}

// write writes one new value and prints it once it is in. It reports
// again when the write must be made again at once: it met the expiry of
// the resilient updater's session.
func (u *updater) write(ctx context.Context) (again bool, err error) {
	value := u.value()
	wctx, cancel := ctx, context.CancelFunc(func() {})
	if !u.resilient {
		// go-zookeeper holds a request made while it is disconnected until
		// it reconnects, however long that takes; the Java client fails it
		// with a connection loss. One session timeout is as long as a
		// request of a live session can wait.
		wctx, cancel = context.WithTimeout(ctx, u.rz.SessionTimeout())
	}
	defer cancel()
	session := u.rz.SessionID()
	err = u.store.Write(wctx, u.key, value)
	switch {
	case ctx.Err() != nil && err == nil:
		fmt.Fprint(u.out, line(time.Now(), u.path, value)) // in, though we are stopping
		return false, nil
	case ctx.Err() != nil:
		// The request may still reach the servers after we stop waiting:
		// say which value, so that nobody takes the last printed one as
		// the last written.
		u.log.Info("stopped with a write in flight; it may or may not land", "key", u.key, "value", value)
		return false, nil
	case err == nil && !u.resilient && session != 0 && u.rz.SessionID() != session:
		// The request left on the old session, waited in go-zookeeper's
		// queue through the expiry and went out on the new one: the value
		// is in, so it is printed, but the chapter's client would have
		// failed it, and the plain updater stops.
		fmt.Fprint(u.out, line(time.Now(), u.path, value))
		return false, fmt.Errorf("%w (session 0x%x) while writing %s = %s, which go-zookeeper then sent in a new session of its own: the plain updater stops here; --resilient carries on in a new session",
			config.ErrSessionExpired, session, u.path, value)
	case err != nil && !u.resilient && session != 0 && u.rz.SessionID() != session:
		// The session ended under the write (go-zookeeper forgets its id
		// at once): say so rather than what the request itself met.
		return false, fmt.Errorf("%w (session 0x%x) while writing %s = %s, which may or may not have landed: the plain updater stops here; --resilient carries on in a new session",
			config.ErrSessionExpired, session, u.path, value)
	case err == nil:
		fmt.Fprint(u.out, line(time.Now(), u.path, value))
		return false, nil
	case u.resilient && errors.Is(err, config.ErrSessionExpired):
		u.log.Warn("the write met the end of the session; writing again in the new one", "key", u.key, "error", err)
		return true, nil
	case u.resilient && errors.Is(err, recoverable.ErrRetriesExhausted):
		return false, fmt.Errorf("%w: gave up writing %s = %s, every try lost its connection (the last: %v); --retries sets how many tries",
			recoverable.ErrRetriesExhausted, u.path, value, innermost(err))
	case errors.Is(err, context.DeadlineExceeded):
		return false, fmt.Errorf("%w while writing %s = %s: no answer within the session timeout (%v); the plain updater stops here, as the chapter's first ConfigUpdater does; --resilient writes again",
			config.ErrConnectionLoss, u.path, value, u.rz.SessionTimeout())
	case errors.Is(err, config.ErrConnectionLoss):
		return false, fmt.Errorf("%w while writing %s = %s (%v): it may or may not have landed; the plain updater stops here, as the chapter's first ConfigUpdater does; --resilient writes again",
			config.ErrConnectionLoss, u.path, value, innermost(err))
	default:
		return false, fmt.Errorf("writing %s = %s: %w", u.path, value, err)
	}
}

// innermost is the error at the end of err's chain: what go-zookeeper or
// the network said, without the layers that named the request.
func innermost(err error) error {
	for {
		var next error
		switch e := err.(type) {
		case interface{ Unwrap() error }:
			next = e.Unwrap()
		case interface{ Unwrap() []error }:
			if errs := e.Unwrap(); len(errs) > 0 {
				next = errs[len(errs)-1]
			}
		}
		if next == nil {
			return err
		}
		err = next
	}
}
