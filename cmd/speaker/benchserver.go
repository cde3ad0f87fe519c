package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// benchServer is the standalone ZooKeeper server that `speaker bench`
// starts when it is given no --servers, with ensemble-scripts/ensemble.sh.
type benchServer struct {
	script, dir, addr string
	env               []string
}

// startBenchServer starts a standalone server on free ports, in a
// temporary folder, allowing sessions of up to 10 minutes.
func startBenchServer(ctx context.Context) (*benchServer, error) {
	script, err := findEnsembleScript()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "zkspeaker-bench-")
	if err != nil {
		return nil, err
	}
	base, err := freeBasePort()
	if err != nil {
		return nil, err
	}
	s := &benchServer{script: script, dir: dir, addr: fmt.Sprintf("127.0.0.1:%d", base),
		env: append(os.Environ(), "ENSEMBLE_DIR="+filepath.Join(dir, "ensemble"), fmt.Sprintf("ZK_BASE_PORT=%d", base),
			"ZK_TICK_MS=2000", "ZK_MAX_SESSION_MS=600000")}
	cmd := exec.CommandContext(ctx, "bash", script, "start", "1")
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		s.stop()
		return nil, fmt.Errorf("could not start a ZooKeeper server (run make deps, or give --servers): %s", strings.TrimSpace(string(out)))
	}
	return s, nil
}

// stop stops the server and deletes its folder.
func (s *benchServer) stop() {
	cmd := exec.Command("bash", s.script, "clean")
	cmd.Env = s.env
	_ = cmd.Run()
	_ = os.RemoveAll(s.dir)
}

// findEnsembleScript looks for ensemble-scripts/ensemble.sh beside the
// binary (bin/speaker) and above the working directory.
func findEnsembleScript() (string, error) {
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
		p := filepath.Join(d, "ensemble-scripts", "ensemble.sh")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("ensemble-scripts/ensemble.sh not found: run speaker bench from the repository, or give --servers")
}

// freeBasePort finds a client port whose peer and election ports (+1000,
// +2000, as ensemble.sh derives them) are free too.
func freeBasePort() (int, error) {
	for tries := 0; tries < 100; tries++ {
		base := 30000 + rand.Intn(7000)
		free := true
		for _, off := range []int{0, 1000, 2000} {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+off))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return base, nil
		}
	}
	return 0, errors.New("no free ports for a ZooKeeper server")
}
