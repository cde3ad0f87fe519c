package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/speaker/internal/bench"
	"zkspeaker/internal/cmdline"
	"zkspeaker/nodemonitor"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure graceful failover, from the exit to the next fsynced line, and what it costs ZooKeeper, beside our lock and zk.Lock, as the number of candidates grows",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "servers", Aliases: []string{"s"}, Usage: "ZooKeeper servers `host:port[,...]` (default: start a standalone server of our own)"},
			&cli.StringFlag{Name: "candidates", Value: "3,100,1000", Usage: "numbers of candidates, comma-separated, each 2 to 10000"},
			&cli.IntFlag{Name: "rounds", Value: 20, Usage: "failovers measured per row, 1 or more"},
			&cli.IntFlag{Name: "warmup", Value: 3, Usage: "failovers per row before the measured ones, not counted, 0 or more"},
			&cli.StringFlag{Name: "election", Value: "sequential,single-file", Usage: "recipes, comma-separated"},
			&cli.StringFlag{Name: "watch", Value: "predecessor,children", Usage: "sequential only: what followers watch, comma-separated"},
			&cli.StringFlag{Name: "policy", Value: "at-most-one", Usage: "the speakers' policy: at-most-one (fenced, each line confirmed) or at-least-one (neither)"},
			&cli.StringFlag{Name: "session-timeout", Value: "5m", Usage: "session timeout to ask for, a `duration` (the server may grant less); pings are never counted"},
			&cli.StringFlag{Name: "process-window", Value: "10s", Usage: "how long to watch a speaker process for its CPU and memory, a `duration`; 0 skips it"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per row instead of a table"},
		},
		Action:       runBench,
		OnUsageError: onUsageError,
	}
}

// benchPlan is the bench's settings after every flag was checked.
type benchPlan struct {
	servers []string
	cases   []bench.Case
	session time.Duration
	window  time.Duration
	warmup  int
	json    bool
}

func parseBench(c *cli.Context) (benchPlan, error) {
	p := benchPlan{json: c.Bool("json")}
	var err error
	if c.IsSet("servers") {
		if p.servers, err = parseServers(c.String("servers")); err != nil {
			return p, err
		}
	}
	if p.session, err = positiveDuration(c, "session-timeout"); err != nil {
		return p, err
	}
	if p.window, err = duration(c, "process-window"); err != nil || p.window < 0 {
		return p, badFlag("process-window", "%q must be a duration, 0 or more", c.String("process-window"))
	}
	rounds := c.Int("rounds")
	if rounds < 1 {
		return p, badFlag("rounds", "must be at least 1, got %d", rounds)
	}
	if p.warmup = c.Int("warmup"); p.warmup < 0 {
		return p, badFlag("warmup", "must be 0 or more, got %d", p.warmup)
	}
	var counts []int
	for _, f := range strings.Split(c.String("candidates"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 || n > 10000 {
			return p, badFlag("candidates", "%q: each must be a number from 2 to 10000", f)
		}
		counts = append(counts, n)
	}
	policy, err := nodemonitor.ParsePolicy(c.String("policy"))
	if err != nil {
		return p, badFlag("policy", "unknown value %q (want at-most-one or at-least-one)", c.String("policy"))
	}
	var watches []nodemonitor.WatchMode
	for _, f := range strings.Split(c.String("watch"), ",") {
		w, err := nodemonitor.ParseWatchMode(strings.TrimSpace(f))
		if err != nil {
			return p, badFlag("watch", "unknown value %q (want predecessor or children)", f)
		}
		watches = append(watches, w)
	}
	for _, e := range strings.Split(c.String("election"), ",") {
		k, err := lookupKind(strings.TrimSpace(e))
		if err != nil {
			return p, err
		}
		modes := watches
		if !k.hasWatch {
			if c.IsSet("watch") && len(strings.Split(c.String("election"), ",")) == 1 {
				return p, badFlag("watch", "does not apply to --election %s", k.name)
			}
			modes = modes[:1] // the watch does not apply: one row per count
		}
		for _, w := range modes {
			for _, n := range counts {
				p.cases = append(p.cases, k.benchCase(w, policy, n, rounds))
			}
		}
	}
	return p, nil
}

func runBench(c *cli.Context) error {
	if c.NArg() > 0 {
		return cmdline.Usage("unexpected argument %q", c.Args().First())
	}
	plan, err := parseBench(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))

	return bench.RunSuite(ctx, bench.Suite{Servers: plan.servers, Cases: plan.cases, Warmup: plan.warmup, Session: plan.session,
		Window: plan.window, JSON: plan.json, Log: log}, os.Stdout, os.Stderr)
}
