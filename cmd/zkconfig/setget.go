package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/fourletter"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

// onceTimeout bounds set and get, the session and the request together.
const onceTimeout = 15 * time.Second

func setCommand() *cli.Command {
	return &cli.Command{
		Name:      "set",
		Usage:     "write VALUE to KEY, creating it if it is missing",
		ArgsUsage: "KEY VALUE",
		Flags:     commonFlags("warn"),
		Action:    runSet,
	}
}

func getCommand() *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "print the value of KEY; exit status 1 if it does not exist",
		ArgsUsage: "KEY",
		Flags:     commonFlags("warn"),
		Action:    runGet,
	}
}

func runSet(c *cli.Context) error {
	a, err := args(c, "KEY", "VALUE")
	if err != nil {
		return err
	}
	if err := config.ValidateValue(a[1]); err != nil {
		return cmdline.Usage("VALUE: %s", cmdline.Reason(err))
	}
	// A hand-typed set retries, as the client does by default: the write is
	// idempotent, so writing again after a connection loss is safe.
	return once(c, "the write may or may not have landed", func(ctx context.Context, store *config.Store, path string) error {
		return store.Write(ctx, a[0], a[1])
	}, config.WithRetry(recoverable.DefaultRetryCounterFactory()))
}

func runGet(c *cli.Context) error {
	a, err := args(c, "KEY")
	if err != nil {
		return err
	}
	return once(c, "nothing was read", func(ctx context.Context, store *config.Store, path string) error {
		value, err := store.Read(ctx, a[0])
		if errors.Is(err, config.ErrNotFound) {
			return fmt.Errorf("no such key %q (%s)", a[0], path)
		}
		if err != nil {
			return err
		}
		fmt.Println(value)
		return nil
	})
}

// once runs op on a fresh session, all of it within onceTimeout, after the
// common flags were checked. KEY is always the first argument. Ctrl-C or
// SIGTERM before op is done ends the command with status 130 and a line
// that says so, and what came of op (midOp): a script must never take an
// interrupted set for a written value.
func once(c *cli.Context, midOp string, op func(ctx context.Context, store *config.Store, path string) error, storeOpts ...config.Option) error {
	s, err := parseSettings(c)
	if err != nil {
		return err
	}
	signals, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := s.Logger()
	// Logged once Ctrl-C and SIGTERM are ours to handle: `speaker chaos`
	// waits for it before it may signal the command.
	log.Info("connecting to ZooKeeper", "servers", strings.Join(s.Servers, ","))
	ctx, cancel := context.WithTimeout(signals, onceTimeout)
	defer cancel()
	// Before any client exists: it would only try again and again, and its
	// Close would wait for a server that is not there.
	if err := fourletter.CheckReachable(ctx, s.Servers); err != nil {
		return interrupted(signals, err, "nothing was sent")
	}
	rz, store, err := s.connect(log, recoverable.DefaultRetryCounterFactory(), storeOpts...)
	if err != nil {
		return err
	}
	defer closeWithin(rz, log, time.Second)
	if err := rz.WaitConnected(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("ZooKeeper at %s answers but opened no session within %v: is a majority of its ensemble up?",
				strings.Join(s.Servers, ","), onceTimeout)
		}
		return interrupted(signals, err, "nothing was sent")
	}
	cmdline.WarnGranted(log, s.SessionTimeout, rz.SessionTimeout())
	path, _ := store.Path(c.Args().First())
	return interrupted(signals, cmdline.ExplainNoAuth(op(ctx, store, path)), midOp)
}

// interrupted is err, or, when Ctrl-C or SIGTERM (ctx) cut the command
// short, the line that says so with what, and status 130 (128 + SIGINT).
func interrupted(ctx context.Context, err error, what string) error {
	if err != nil && ctx.Err() != nil {
		return cli.Exit("zkconfig: interrupted: "+what, 130)
	}
	return err
}

// quiet drops err after Ctrl-C: the user asked the command to stop, and
// "context canceled" tells them nothing.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
