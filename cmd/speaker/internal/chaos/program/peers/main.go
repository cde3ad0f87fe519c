// Command peers is `make peers`: the same seeded chaos soak, one after
// the other, on this project's speaker and on the two peers of
// docs/peers (a zk.Lock speaker in Go, a kazoo Election one in Python),
// each run through `--cmd` as anyone's program is, then one table of
// what each soak found. Each soak's files (summary.txt, out.txt, the
// processes' logs, faults.log, timeline.svg) stay in a folder of its own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/program"
)

func main() {
	seed := flag.Int64("seed", 48, "seed of the plan, the same for every program")
	duration := flag.Duration("duration", 5*time.Minute, "how long each soak injects faults")
	speaker := flag.String("speaker", "bin/speaker", "this project's speaker")
	zklock := flag.String("zklock", "bin/peer-zklock", "the zk.Lock peer, built from docs/peers/zklock")
	root := flag.String("root", ".", "the repository, where docs/peers/kazoo/speaker.py is")
	dir := flag.String("dir", "out/peers", "new or empty folder; each soak's files go to a folder in it named for the program, its progress lines beside it")
	flag.Parse()
	if err := run(*seed, *duration, *speaker, *zklock, *root, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		if errors.Is(err, chaos.ErrConfig) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run soaks each program in turn and prints the table. The soaks do not
// run at once: on a small machine they would load it into stalls that
// are no program's.
func run(seed int64, duration time.Duration, speaker, zklock, root, dir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	chaos.Register(program.Recipe)
	cfgs, names, err := plan(seed, duration, speaker, zklock, root, dir)
	if err != nil {
		return err
	}
	var rows []program.Row
	for i, cfg := range cfgs {
		fmt.Fprintf(os.Stderr, "peers: %s, seed %d, %v: files in %s\n", names[i], seed, duration, cfg.Dir)
		progress, err := os.Create(cfg.Dir + ".progress.txt")
		if err != nil {
			return err
		}
		cfg.Progress = progress
		rep, err := chaos.Run(ctx, cfg)
		progress.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", names[i], err)
		}
		rows = append(rows, program.Row{Name: names[i], Report: rep})
	}
	fmt.Printf("seed %d, %v of faults each, 5 processes, 3 servers, at-most-one\n", seed, duration)
	program.WriteTable(os.Stdout, rows)
	return nil
}

// plan is the soak of each program, every one checked before the first
// starts: a peer that cannot run is said at once, not after the soaks
// before it.
func plan(seed int64, duration time.Duration, speaker, zklock, root, dir string) ([]chaos.Config, []string, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, nil, fmt.Errorf("%w: -dir %s is not empty: one run's files are never mixed with another's", chaos.ErrConfig, dir)
	}
	if out, err := exec.Command(program.Python, "-c", "import kazoo").CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("%w: %s cannot import kazoo (make peers installs python3-kazoo): %s", chaos.ErrConfig, program.Python,
			strings.TrimSpace(string(out)))
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	var cfgs []chaos.Config
	var names []string
	for _, p := range program.Peers(abs(speaker), abs(zklock), abs(root)) {
		cfg := chaos.Config{Recipe: program.Name, Cmd: p.Cmd, Seed: seed, Duration: duration, Speakers: 5, Servers: 3,
			Policy: "at-most-one", Speaker: abs(speaker), Dir: filepath.Join(dir, p.Short)}
		if err := chaos.Validate(cfg); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		cfgs, names = append(cfgs, cfg), append(names, p.Name)
	}
	return cfgs, names, os.MkdirAll(dir, 0o755)
}
