package main

import (
	"context"
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

	"zkspeaker/internal/electionstatus"
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
		return usageError{fmt.Sprintf("unexpected argument %q", c.Args().First())}
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

	// No log: a line across --watch's display would garble it. The display
	// says itself when status's session is cut off.
	rz, err := recoverable.Connect(servers, 10*time.Second, recoverable.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	defer rz.Close()
	st := electionstatus.Printer{W: os.Stdout, Servers: servers, Election: election.name, Path: path,
		Clear: c.Bool("watch") && isTerminal(os.Stdout),
		Inspect: func(ctx context.Context, rz *recoverable.RecoverableZookeeper) (electionstatus.Render, <-chan zk.Event, error) {
			return election.inspect(ctx, rz, path)
		}}
	if c.Bool("watch") {
		return st.Watch(ctx, rz)
	}
	once, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := st.Once(once, rz); err != nil {
		return fmt.Errorf("cannot read the election from %s: %w", strings.Join(servers, ","), err)
	}
	return nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
