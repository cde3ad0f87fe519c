package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/speaker/internal/status"
	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the election as ZooKeeper sees it: candidates in order, who watches whom, who leads",
		Flags: []cli.Flag{
			serversFlag(), electionFlag(), pathFlag(),
			&cli.BoolFlag{Name: "watch", Usage: "keep running and print the election again whenever it changes"},
		},
		Action:       runStatus,
		OnUsageError: onUsageError,
	}
}

func runStatus(c *cli.Context) error {
	if c.NArg() > 0 {
		return cmdline.Usage("unexpected argument %q", c.Args().First())
	}
	servers, err := parseServers(c.String("servers"))
	if err != nil {
		return err
	}
	election, path, err := parseElection(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	once := ctx
	if !c.Bool("watch") {
		var cancel context.CancelFunc
		once, cancel = context.WithTimeout(ctx, onceTimeout)
		defer cancel()
	}
	// Before any client exists: it would only retry, in silence. Once, it
	// says so and exits; --watch, which runs until stopped, waits for a
	// server, as every command that runs until stopped does.
	if err := fourletter.CheckReachable(once, servers); err != nil && !c.Bool("watch") {
		return quiet(ctx, err)
	} else if err != nil {
		// Before the display starts, so a log line garbles nothing.
		slog.New(slog.NewTextHandler(os.Stderr, nil)).Warn(err.Error() + cmdline.Waiting)
	}
	// No log: a line across --watch's display would garble it. The display
	// says itself when status's session is cut off.
	rz, err := recoverable.Connect(servers, 10*time.Second, recoverable.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	defer rz.Close()
	if err := rz.WaitConnected(once); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return fmt.Errorf("ZooKeeper at %s answers but opened no session within %v: is a majority of its ensemble up? (ensemble-scripts/ensemble.sh status)",
				strings.Join(servers, ","), onceTimeout)
		}
		return quiet(ctx, err)
	}
	st := status.Printer{W: os.Stdout, Servers: servers, Election: election.name, Path: path,
		Clear: c.Bool("watch") && isTerminal(os.Stdout),
		Inspect: func(ctx context.Context, rz *recoverable.RecoverableZookeeper) (status.Render, <-chan zk.Event, error) {
			return election.inspect(ctx, rz, path)
		}}
	for _, k := range electionKinds {
		if k.name != election.name {
			st.Others = append(st.Others, status.Other{Election: k.name, Path: k.defaultPath,
				Inspect: func(ctx context.Context, rz *recoverable.RecoverableZookeeper) (status.Render, <-chan zk.Event, error) {
					return k.inspect(ctx, rz, k.defaultPath)
				}})
		}
	}
	if c.Bool("watch") {
		return st.Watch(ctx, rz)
	}
	if err := st.Once(once, rz); err != nil {
		return quiet(ctx, fmt.Errorf("cannot read the election from %s: %w", strings.Join(servers, ","), err))
	}
	return nil
}

// quiet drops err after Ctrl-C (or SIGTERM): the user asked status to stop,
// and "context canceled" tells them nothing.
func quiet(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// onceTimeout bounds `speaker status` without --watch, session and reads.
const onceTimeout = 15 * time.Second

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
