package main

import (
	"context"
	"fmt"
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

	// Only warnings: a disconnection is worth a line, the rest is noise here.
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rz, err := recoverable.Connect(servers, 10*time.Second, recoverable.WithLogger(log))
	if err != nil {
		return err
	}
	defer rz.Close()

	st := electionstatus.Printer{W: os.Stdout, Servers: servers, Election: election.name, Path: path,
		Clear: c.Bool("watch") && isTerminal(os.Stdout),
		Inspect: func(ctx context.Context, rz *recoverable.RecoverableZookeeper, b *strings.Builder, w electionstatus.Watches) (<-chan zk.Event, error) {
			return election.inspect(ctx, rz, path, b, w)
		}}
	if !c.Bool("watch") {
		once, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		_, err := st.Print(once, rz)
		if err != nil {
			return fmt.Errorf("cannot read the election from %s: %w", strings.Join(servers, ","), err)
		}
		return nil
	}
	return st.Watch(ctx, rz)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
