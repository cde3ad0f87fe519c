package ensemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoScripts is returned by Scripts when ensemble-scripts is nowhere to
// be found.
var ErrNoScripts = errors.New("ensemble: ensemble-scripts/ensemble.sh not found: run from the repository")

// Scripts returns the ensemble-scripts folder: beside the running binary's
// folder (bin/speaker), or in the working directory or one above it.
func Scripts() (string, error) {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(filepath.Dir(exe)))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, "ensemble-scripts")
		if _, err := os.Stat(filepath.Join(p, "ensemble.sh")); err == nil {
			return p, nil
		}
	}
	return "", ErrNoScripts
}

// Ensemble is ZooKeeper servers started with ensemble.sh in a temporary
// folder of their own: one standalone server, or an ensemble of several.
// They do not outlive this process: Stop stops them, and should the
// process end without it (a SIGKILL, a crash), ensemble.sh's sentries
// (ZK_OWNER_PID) kill them and remove the folder within seconds.
type Ensemble struct {
	// Addrs are the servers' client addresses, host:port, server 1 first.
	Addrs  []string
	script string
	dir    string
	env    []string
}

// Start starts n servers on free ports, with extra environment for
// ensemble.sh (ZK_TICK_MS=..., ZK_MAX_SESSION_MS=...), and waits until they
// serve. One server runs standalone.
func Start(ctx context.Context, n int, extraEnv ...string) (*Ensemble, error) {
	scripts, err := Scripts()
	if err != nil {
		return nil, err
	}
	base, err := FreeBase(n)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zkspeaker-ensemble-")
	if err != nil {
		return nil, err
	}
	e := &Ensemble{script: filepath.Join(scripts, "ensemble.sh"), dir: dir,
		env: append(append(os.Environ(), "ENSEMBLE_DIR="+dir, fmt.Sprintf("ZK_BASE_PORT=%d", base),
			// Our servers end with us, however we end: SIGKILL included.
			fmt.Sprintf("ZK_OWNER_PID=%d", os.Getpid())), extraEnv...)}
	for i := range n {
		e.Addrs = append(e.Addrs, fmt.Sprintf("127.0.0.1:%d", base+i))
	}
	if err := e.run(ctx, "start", strconv.Itoa(n)); err != nil {
		e.Stop()
		return nil, fmt.Errorf("could not start %d ZooKeeper servers (run make deps): %w", n, err)
	}
	return e, nil
}

// StartStandalone starts one standalone server (see Start).
func StartStandalone(ctx context.Context, extraEnv ...string) (*Ensemble, error) {
	return Start(ctx, 1, extraEnv...)
}

// Kill kills server id (1-based) with SIGKILL: a crash.
func (e *Ensemble) Kill(ctx context.Context, id int) error {
	return e.run(ctx, "kill", strconv.Itoa(id))
}

// StartServer starts server id again and waits until it answers.
func (e *Ensemble) StartServer(ctx context.Context, id int) error {
	return e.run(ctx, "start-server", strconv.Itoa(id))
}

// run runs one ensemble.sh command.
func (e *Ensemble) run(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "bash", append([]string{e.script}, args...)...)
	cmd.Env = e.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ensemble.sh %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Stop stops the servers and deletes their folder.
func (e *Ensemble) Stop() {
	_ = e.run(context.Background(), "clean")
	_ = os.RemoveAll(e.dir)
}

// Wipe deletes the data of stopped server id (1-based): its snapshots and
// transaction logs, as a lost disk would; its myid stays. Started again
// with the others wiped too, the ensemble has no znodes at all.
func (e *Ensemble) Wipe(id int) error {
	return WipeData(filepath.Join(e.dir, fmt.Sprintf("zk%d", id), "data"))
}

// WipeData deletes everything in a server's data folder but its myid.
func WipeData(dataDir string) error {
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != "myid" {
			if err := os.RemoveAll(filepath.Join(dataDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
