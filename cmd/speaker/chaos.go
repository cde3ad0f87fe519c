package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/lock"
	"zkspeaker/cmd/speaker/internal/chaos/program"
	_ "zkspeaker/cmd/speaker/internal/chaos/recipes" // every recipe's soak
	"zkspeaker/internal/cmdline"
)

func chaosCommand() *cli.Command {
	return &cli.Command{
		Name:  "chaos",
		Usage: "a seeded soak: speakers (or, with --recipe, another program's processes) on a real ensemble, each behind its own fault proxies, hit by random faults; then an exact check",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cmd", Usage: "run a program of yours in place of the speaker: its command line, with {servers}, {name} and {out}, and {path} and {session} if it takes them (docs/chaos.md, the contract)"},
			&cli.StringFlag{Name: "pace", Usage: "with --cmd, the longest your program takes to write its next line, leading or taking over once it may (a poller's period), a `duration` (default 1s; docs/chaos.md, the contract)"},
			&cli.StringFlag{Name: "recipe", Value: chaos.DefaultRecipe(), Usage: "the program under test: " + strings.Join(chaos.Recipes(), ", ") + " (docs/chaos.md)"},
			&cli.Int64Flag{Name: "seed", Usage: "seed of the random plan; the same seed draws the same faults (default: from the clock, printed)"},
			&cli.StringFlag{Name: "duration", Value: "2m", Usage: "how long to inject faults, a `duration`"},
			&cli.IntFlag{Name: "speakers", Value: 5, Usage: "processes, 2 to 9: speakers, or the recipe's (contenders, members, updaters, workers)"},
			electionFlag(),
			&cli.StringFlag{Name: "policy", Value: "at-most-one", Usage: "the speakers' policy, or the one a --cmd program declares (which overlaps it may show): at-most-one or at-least-one"},
			&cli.StringFlag{Name: "seqid-mode", Value: "counter", Usage: "with --recipe seqid, the mode of the sequence its workers take IDs from: counter or cas (seqid create --mode)"},
			&cli.BoolFlag{Name: "fence", Value: true, Usage: "the speakers' --fence (at-most-one only; --fence=false to turn off)"},
			&cli.StringFlag{Name: "faults", Usage: "only these fault kinds, comma-separated (default: all of " + strings.Join(chaosKindNames(), ", ") + "; a recipe's own name for delete-leader, such as delete-member, works too)"},
			&cli.IntFlag{Name: "servers", Value: 3, Usage: "ZooKeeper servers to start: 1 (standalone) or 3 (an ensemble)"},
			&cli.StringFlag{Name: "dir", Usage: "new or empty `folder` for out.txt, logs, faults.log, summary.txt and timeline.svg (default: out/chaos/<seed>)"},
		},
		Action:       runChaos,
		OnUsageError: onUsageError,
	}
}

func parseChaos(c *cli.Context) (chaos.Config, error) {
	cfg := chaos.Config{Recipe: c.String("recipe"), Seed: c.Int64("seed"), Speakers: c.Int("speakers"), Election: c.String("election"),
		Policy: c.String("policy"), Fence: c.Bool("fence"), Servers: c.Int("servers"), Dir: c.String("dir"),
		SeqidMode: c.String("seqid-mode")}
	if m := cfg.SeqidMode; m != "counter" && m != "cas" {
		return cfg, badFlag("seqid-mode", "%q: want counter or cas", m)
	}
	if c.IsSet("cmd") {
		if c.IsSet("recipe") && cfg.Recipe != program.Name {
			return cfg, badFlag("cmd", "runs a program of yours in place of ours, and --recipe %s runs ours: give one of them", cfg.Recipe)
		}
		cfg.Recipe, cfg.Cmd = program.Name, c.String("cmd")
	}
	var err error
	if cfg.Duration, err = positiveDuration(c, "duration"); err != nil {
		return cfg, err
	}
	if c.IsSet("pace") {
		if !c.IsSet("cmd") {
			return cfg, badFlag("pace", "is what a --cmd program declares: give --cmd too")
		}
		if cfg.Interval, err = positiveDuration(c, "pace"); err != nil {
			return cfg, err
		}
	}
	if !c.IsSet("seed") {
		cfg.Seed = time.Now().UnixNano() % 1_000_000
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join("out", "chaos", fmt.Sprint(cfg.Seed))
	}
	if !c.IsSet("fence") && cfg.Policy == "at-least-one" {
		cfg.Fence = false // fencing is at-most-one's; at-least-one runs without it
	}
	if c.IsSet("faults") {
		for _, name := range strings.Split(c.String("faults"), ",") {
			k, err := chaos.ParseKind(strings.TrimSpace(name))
			if err != nil {
				return cfg, badFlag("faults", "unknown kind %q (want some of %s)", name, strings.Join(chaosKindNames(), ","))
			}
			cfg.Kinds = append(cfg.Kinds, k)
		}
	}
	if cfg.Speaker, err = os.Executable(); err != nil {
		return cfg, err
	}
	if err := chaos.Validate(cfg); err != nil {
		return cfg, cmdline.Usage("%s", err)
	}
	return cfg, nil
}

func chaosKindNames() []string {
	var out []string
	for _, k := range chaos.Kinds() {
		out = append(out, k.String())
	}
	return out
}

func runChaos(c *cli.Context) error {
	if c.NArg() > 0 {
		return cmdline.Usage("unexpected argument %q", c.Args().First())
	}
	cfg, err := parseChaos(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg.Progress = os.Stderr
	fmt.Fprintf(os.Stderr, "%s; files in %s\n", cfg, cfg.Dir)
	rep, err := chaos.Run(ctx, cfg)
	if errors.Is(err, chaos.ErrConfig) {
		return cmdline.Usage("%s", err)
	}
	if err != nil {
		return err
	}
	rep.Write(os.Stdout)
	fmt.Printf("files: %s (%s)\n", cfg.Dir, cfg.Files())
	if !rep.Pass() {
		return cli.Exit("", 1)
	}
	return nil
}

// chaosWorkCommand is the CMD of a lock soak's zklock contenders (see
// lock.Work); hidden, as only the soak runs it.
func chaosWorkCommand() *cli.Command {
	return &cli.Command{
		Name:   "chaos-work",
		Usage:  "a lock soak's critical section: a line every interval for a while (run by zklock)",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Required: true},
			&cli.StringFlag{Name: "out", Required: true},
			&cli.StringFlag{Name: "interval", Value: "200ms"},
			&cli.StringFlag{Name: "for", Value: "1s"},
			&cli.BoolFlag{Name: "fence", Usage: "refuse a line below the file's last epoch (ZKLOCK_EPOCH)"},
		},
		Action: func(c *cli.Context) error {
			interval, err := positiveDuration(c, "interval")
			if err != nil {
				return err
			}
			hold, err := positiveDuration(c, "for")
			if err != nil {
				return err
			}
			epoch, _ := strconv.ParseInt(os.Getenv("ZKLOCK_EPOCH"), 10, 64)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return lock.Work(ctx, c.String("name"), c.String("out"), interval, hold, epoch, c.Bool("fence"))
		},
		OnUsageError: onUsageError,
	}
}
