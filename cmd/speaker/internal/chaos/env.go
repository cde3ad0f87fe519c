package chaos

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"zkspeaker/recoverable"
)

// Env is what a recipe's Begin may use of the soak that runs it.
type Env struct{ s *soak }

// Running is a recipe's part of a soak in progress, as its Begin returns
// it. Every hook may be nil.
type Running struct {
	// Sink receives the stdout of the process called name, line by line;
	// nil (or a nil Sink) leaves it in the process's log.
	Sink func(name string) LineSink
	// Wind is called once the faults are over, before the final SIGTERM
	// to every process.
	Wind func(ctx context.Context)
	// Record is the recipe's record for its checker (Input.Record), once
	// every process has ended.
	Record func() any
	// Restore is the last step of a DataLoss, once a majority of the wiped
	// servers serve again; it returns the fault log's note.
	Restore func(ctx context.Context) string
	// Close releases what Begin opened; it is called once, at the end.
	Close func()
}

// Config is the soak's configuration, its defaults filled in.
func (e *Env) Config() *Config { return e.s.cfg }

// Servers are the addresses of the ensemble's servers.
func (e *Env) Servers() []string { return e.s.ens.Addrs }

// Conn is the operator's own client now: a session straight to the
// servers.
func (e *Env) Conn() *recoverable.RecoverableZookeeper { return e.s.op.conn() }

// Lives says when each of the soak's processes ran so far, by name.
func (e *Env) Lives() map[string][]Span {
	out := map[string][]Span{}
	for _, sp := range e.s.speakers {
		out[sp.name] = sp.livesOf()
	}
	return out
}

// Stop sends SIGTERM at once to every process whose name which accepts,
// waits until each has ended, and notes how, as the final stop does.
func (e *Env) Stop(which func(name string) bool) {
	var wg sync.WaitGroup
	for _, sp := range e.s.speakers {
		if which(sp.name) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.s.noteExit(sp.stop(syscall.SIGTERM, ExitLimit))
			}()
		}
	}
	wg.Wait()
}

// Command runs the recipe's program as the operator, straight to the
// servers: its first argument, --servers, then the rest. It returns the
// program's output.
func (e *Env) Command(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.s.cfg.binary(), append([]string{args[0], "--servers", joinAddrs(e.s.ens.Addrs)}, args[1:]...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", e.s.cfg.recipe().Command, args[0], err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Sleep waits d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) { sleep(ctx, d) }

func joinAddrs(addrs []string) string { return strings.Join(addrs, ",") }
