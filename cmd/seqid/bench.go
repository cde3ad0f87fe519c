package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"zkspeaker/cmd/seqid/internal/seqbench"
	"zkspeaker/internal/cmdline"
	"zkspeaker/internal/ensemble"
	"zkspeaker/recipes/sequence"
)

func benchCommand() *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "measure IDs per second and conflicts against the mode, the number of workers, of goroutines in one worker, the batch size and the backoff, with a persistence leader raising the limits, beside the ceiling: plain sets of one znode",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "servers", Aliases: []string{"s"}, Usage: "ZooKeeper servers `host:port[,...]` (default: start a local 3-server ensemble of our own)"},
			&cli.StringFlag{Name: "mode", Value: "cas,counter,setdata", Usage: "what to measure, comma-separated: cas (compare-and-set), counter (a counter znode's versions), setdata (the ceiling: plain sets with version -1 of one znode from as many sessions and goroutines, with no IDs; measured with the first batch only)"},
			&cli.StringFlag{Name: "workers", Value: "1,2,4,8,16", Usage: "numbers of concurrent workers, each a session and a Sequence of its own, comma-separated, each 1 to 256"},
			&cli.StringFlag{Name: "goroutines", Value: "1,16,64", Usage: "numbers of goroutines sharing one worker's Sequence, whose calls it combines, comma-separated, each 1 to 1024; \"\" for none"},
			&cli.StringFlag{Name: "batch", Value: "1,10,100", Usage: "IDs per call, comma-separated, each 1 or more"},
			&cli.StringFlag{Name: "backoff", Value: defaultBackoff, Usage: "a worker's backoff after a lost compare-and-set, `BASE-MAX` (doubled from BASE with each loss in a row, up to MAX) or none (retry at once, as the article does), comma-separated to compare"},
			&cli.StringFlag{Name: "duration", Value: "2s", Usage: "how long each window of a row runs, a `duration`"},
			&cli.IntFlag{Name: "repeat", Value: 3, Usage: "windows per row, taken in turn with the other rows of the same batch; each row shows its median window (1 to 100)"},
			&cli.StringFlag{Name: "warmup", Value: "30s", Usage: "how long to warm the servers up before the first row, a `duration` (0s for none): a fresh server gets faster for many seconds as its JIT compiles"},
			&cli.StringFlag{Name: "block", Value: "100000", Usage: "the persistence leader's reservation size, 1 or more"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per row instead of a table"},
		},
		Action: runBench,
	}
}

func runBench(c *cli.Context) error {
	if _, err := args(c); err != nil {
		return err
	}
	cfg := seqbench.Config{Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
	var err error
	if c.IsSet("servers") {
		if cfg.Servers, err = cmdline.ParseServers(c.String("servers")); err != nil {
			return err
		}
	}
	if cfg.Modes, err = modeList(c.String("mode")); err != nil {
		return err
	}
	if cfg.Workers, err = intList(c, "workers", 1, 256); err != nil {
		return err
	}
	if strings.TrimSpace(c.String("goroutines")) != "" {
		if cfg.Goroutines, err = intList(c, "goroutines", 1, 1024); err != nil {
			return err
		}
	}
	if cfg.Backoffs, err = backoffList(c.String("backoff")); err != nil {
		return err
	}
	batches, err := intList(c, "batch", 1, 1<<30)
	if err != nil {
		return err
	}
	for _, b := range batches {
		cfg.Batches = append(cfg.Batches, int64(b))
	}
	if cfg.Duration, err = cmdline.PositiveDuration(c, "duration"); err != nil {
		return err
	}
	if cfg.Repeat = c.Int("repeat"); cfg.Repeat < 1 || cfg.Repeat > 100 {
		return cmdline.BadFlag("repeat", "%d: want 1 to 100", cfg.Repeat)
	}
	if cfg.Warmup, err = time.ParseDuration(c.String("warmup")); err != nil || cfg.Warmup < 0 {
		return cmdline.BadFlag("warmup", "%q: want a duration such as 15s, or 0s for none", c.String("warmup"))
	}
	if cfg.Block, err = int64Flag(c, "block", 1, sequence.MaxBlock); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if cfg.Servers == nil {
		fmt.Fprintln(os.Stderr, "bench: starting a local 3-server ensemble of our own...")
		ens, err := ensemble.Start(ctx, 3)
		if err != nil && ctx.Err() != nil {
			return nil // interrupted while the servers started: Start stopped them
		}
		if err != nil {
			return fmt.Errorf("%w (or give --servers)", err)
		}
		defer ens.Stop()
		cfg.Servers = ens.Addrs
	}
	fmt.Fprintf(os.Stderr, "bench: the median of %d windows of %s per row on %s; a warm-up of %s first; a persistence leader raises limits %d IDs at a time\n",
		cfg.Repeat, cfg.Duration, strings.Join(cfg.Servers, ","), cfg.Warmup, cfg.Block)
	// Fixed widths rather than a tabwriter: each batch's rows show as
	// soon as they are measured.
	const row = "%-8v %-10v %5v %7v %10v %9v %8v %13v %12v %5v %6v\n"
	if !c.Bool("json") {
		fmt.Printf(row, "MODE", "BACKOFF", "BATCH", "WORKERS", "GOROUTINES", "IDS/S", "CAS/S", "CONFLICTS/CAS", "CONFLICTS/ID", "WAITS", "RAISES")
	}
	err = seqbench.Run(ctx, cfg, func(r seqbench.Row) {
		if c.Bool("json") {
			_ = json.NewEncoder(os.Stdout).Encode(r)
			return
		}
		fmt.Printf(row, r.Mode, r.Backoff, r.Batch, r.Workers, r.Goroutines, fmt.Sprintf("%.0f", r.IDsPerSec), fmt.Sprintf("%.0f", r.CASPerSec),
			fmt.Sprintf("%.2f", r.Conflicts), fmt.Sprintf("%.3f", r.ConflictID), r.Waits, r.Raises)
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// defaultBackoff is the library's own backoff, as --backoff writes it.
var defaultBackoff = seqbench.Backoff{Base: sequence.DefaultBackoffBase, Max: sequence.DefaultBackoffMax}.String()

// backoffList parses --backoff: none, or BASE-MAX, comma-separated.
func backoffList(flag string) ([]seqbench.Backoff, error) {
	var out []seqbench.Backoff
	for _, f := range strings.Split(flag, ",") {
		f = strings.TrimSpace(f)
		if f == "none" {
			out = append(out, seqbench.Backoff{})
			continue
		}
		lo, hi, ok := strings.Cut(f, "-")
		base, err1 := time.ParseDuration(lo)
		limit, err2 := time.ParseDuration(hi)
		if !ok || err1 != nil || err2 != nil || base <= 0 || limit < base || limit > time.Minute {
			return nil, cmdline.BadFlag("backoff", "%q: want none or BASE-MAX, two durations such as 2ms-50ms, the first above 0 and no more than the second, at most a minute", f)
		}
		out = append(out, seqbench.Backoff{Base: base, Max: limit})
	}
	return out, nil
}

// modeList parses --mode: cas, counter and setdata, comma-separated, each
// once.
func modeList(flag string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(flag, ",") {
		f = strings.TrimSpace(f)
		if f != seqbench.ModeCAS && f != seqbench.ModeCounter && f != seqbench.ModeSetData || slices.Contains(out, f) {
			return nil, cmdline.BadFlag("mode", "%q: want cas, counter or setdata, comma-separated, each once", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// intList parses a comma-separated flag of whole numbers in [lo, hi].
func intList(c *cli.Context, name string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(c.String(name), ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo || v > hi {
			return nil, cmdline.BadFlag(name, "%q: want whole numbers from %d to %d, comma-separated", f, lo, hi)
		}
		out = append(out, v)
	}
	return out, nil
}
