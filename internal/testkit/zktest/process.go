package zktest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/prebuilt"
)

var (
	buildMu sync.Mutex
	built   = map[string]*build{}
)

// build is one command built once per test binary.
type build struct {
	once sync.Once
	path string
	err  error
}

// BuildSpeaker builds cmd/speaker once per test binary and returns its path.
func BuildSpeaker(t testing.TB) string { return BuildCommand(t, "speaker") }

// BuildCommand builds cmd/<name> once per test binary and returns its path:
// the one make test built for the whole run, when there is one (prebuilt).
func BuildCommand(t testing.TB, name string) string {
	t.Helper()
	buildMu.Lock()
	b := built[name]
	if b == nil {
		b = &build{}
		built[name] = b
	}
	buildMu.Unlock()
	b.once.Do(func() {
		if p, ok := prebuilt.Command(name, false); ok {
			b.path = p
			return
		}
		root, err := RepoRoot()
		if err != nil {
			b.err = err
			return
		}
		dir, err := os.MkdirTemp("", "zktest-"+name+"-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/"+name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./cmd/%s: %w\n%s", name, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Process is a child process whose output the test can read.
type Process struct {
	t      testing.TB
	cmd    *exec.Cmd
	out    *Buffer
	errOut *Buffer
	exited chan struct{}
	code   int
}

// RunSpeaker starts the speaker binary with args; it is stopped (SIGTERM,
// then SIGKILL) when the test ends, and its stderr is logged if the test
// failed.
func RunSpeaker(t testing.TB, args ...string) *Process {
	t.Helper()
	requireZooKeeper(t) // the e2e tests all need it: fail early and clearly
	return Run(t, BuildSpeaker(t), args...)
}

// Run starts bin with args in the test's working directory.
func Run(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	return RunEnv(t, nil, bin, args...)
}

// RunEnv is Run with env ("NAME=value" each) added to the process's
// environment: a parallel test cannot set the test binary's own.
func RunEnv(t testing.TB, env []string, bin string, args ...string) *Process {
	t.Helper()
	return start(t, &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}, env, bin, args...)
}

// RunJob is Run in a process group of its own, as a shell starts a job:
// SignalGroup then reaches the process and all it left in its group, as
// Ctrl-Z (SIGTSTP), `kill -- -PGID` or `timeout -s KILL` do.
func RunJob(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	return start(t, &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}, nil, bin, args...)
}

func start(t testing.TB, attr *syscall.SysProcAttr, env []string, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{t: t, out: &Buffer{}, errOut: &Buffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.errOut
	p.cmd.SysProcAttr = attr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		if err != nil && p.code == -1 {
			p.code = -1 // killed by a signal
		}
		close(p.exited)
	}()
	t.Cleanup(func() {
		// Gracefully first, so that a speaker closes its session and the
		// next test does not queue behind its znode; then for sure.
		p.Cont()
		p.Term()
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("stderr of %s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), p.Stderr())
		}
	})
	return p
}

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) { _ = p.cmd.Process.Signal(sig) }

// SignalGroup sends sig to the process's group, as a terminal or
// `kill -- -PGID` does; the process must have been started by RunJob.
func (p *Process) SignalGroup(sig syscall.Signal) { _ = syscall.Kill(-p.Pid(), sig) }

// Kill sends SIGKILL: a crash.
func (p *Process) Kill() { p.Signal(syscall.SIGKILL) }

// SignalName names sig as kill(1) does, for test names: "SIGTERM".
func SignalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
}

// Term sends SIGTERM: a graceful stop.
func (p *Process) Term() { p.Signal(syscall.SIGTERM) }

// Stop sends SIGSTOP: the process freezes, as in a long GC pause.
func (p *Process) Stop() { p.Signal(syscall.SIGSTOP) }

// Cont sends SIGCONT after Stop.
func (p *Process) Cont() { p.Signal(syscall.SIGCONT) }

// Wait waits for the process to exit and returns its exit code, -1 if a
// signal ended it.
func (p *Process) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.exited:
		return p.code, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("process %d still running: %w", p.Pid(), ctx.Err())
	}
}

// Stdout returns what the process wrote to stdout so far.
func (p *Process) Stdout() string { return p.out.String() }

// Stderr returns what the process wrote to stderr so far.
func (p *Process) Stderr() string { return p.errOut.String() }

// WaitForStderr waits until stderr contains s.
func (p *Process) WaitForStderr(ctx context.Context, s string) error {
	for !strings.Contains(p.Stderr(), s) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("stderr never said %q: %w", s, ctx.Err())
		case <-p.exited:
			if !strings.Contains(p.Stderr(), s) {
				return errors.New("process exited before saying " + fmt.Sprintf("%q", s))
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// Buffer is a bytes.Buffer safe for a writer and readers: a command's
// output, read while the command runs.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; a process's output arrives on its own goroutine.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
