package ensemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// Standalone is one ZooKeeper server started with ensemble.sh in a
// temporary folder of its own.
type Standalone struct {
	// Addr is its client address, host:port.
	Addr   string
	script string
	dir    string
	env    []string
}

// StartStandalone starts a standalone server on free ports with extra
// environment for ensemble.sh (ZK_TICK_MS=..., ZK_MAX_SESSION_MS=...), and
// waits until it serves.
func StartStandalone(ctx context.Context, extraEnv ...string) (*Standalone, error) {
	scripts, err := Scripts()
	if err != nil {
		return nil, err
	}
	base, err := FreeBase(1)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zkspeaker-standalone-")
	if err != nil {
		return nil, err
	}
	s := &Standalone{Addr: fmt.Sprintf("127.0.0.1:%d", base), script: filepath.Join(scripts, "ensemble.sh"), dir: dir,
		env: append(append(os.Environ(), "ENSEMBLE_DIR="+filepath.Join(dir, "ensemble"), fmt.Sprintf("ZK_BASE_PORT=%d", base)), extraEnv...)}
	cmd := exec.CommandContext(ctx, "bash", s.script, "start", "1")
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("could not start a ZooKeeper server (run make deps): %s", strings.TrimSpace(string(out)))
	}
	return s, nil
}

// Stop stops the server and deletes its folder.
func (s *Standalone) Stop() {
	cmd := exec.Command("bash", s.script, "clean")
	cmd.Env = s.env
	_ = cmd.Run()
	_ = os.RemoveAll(s.dir)
}
