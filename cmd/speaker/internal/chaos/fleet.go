package chaos

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"zkspeaker/internal/faultproxy"
)

// speakerProc is one speaker slot: a name, the fault proxies in front of
// every server that only it uses, so that its network can be faulted
// alone, and the process that runs under that name now. A killed speaker
// is started again under the same name; its counter starts again at 1,
// which the timeline reads as a new life.
type speakerProc struct {
	name    string
	cfg     *Config
	proxies []*faultproxy.Proxy

	mu      sync.Mutex
	rng     *rand.Rand // what varies from one start to the next; under mu
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has been waited for
	ready   chan struct{} // closed when cmd said it started, or ended
	status  int
	endedBy syscall.Signal // what ended it, if a signal did
	halted  bool           // stopped by the soak: not started again on its own (respawn)
	started int            // the pid of the process started last
	// connsAtStart is how many connections its proxies had accepted when
	// it was started last.
	connsAtStart int
	sink         LineSink      // where its stdout goes, line by line; nil: into its log
	lives        []Span        // when each of its processes ran
	printed      chan struct{} // closed at its first line on stdout, when it has a sink

	respawning sync.WaitGroup
}

func newSpeakerProc(cfg *Config, name string, servers []string, seed uint64) (*speakerProc, error) {
	s := &speakerProc{name: name, cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x51a7))}
	for _, addr := range servers {
		p, err := faultproxy.Listen(addr)
		if err != nil {
			s.closeProxies()
			return nil, err
		}
		s.proxies = append(s.proxies, p)
	}
	return s, nil
}

// start runs the speaker, its log appended to logs/<name>.log, and returns
// once the speaker has said it started: by then it handles SIGTERM. A fault
// may pick the speaker the moment start returns, and a SIGTERM that came
// before the handler would kill it outright, which would read as a bad exit.
func (s *speakerProc) start() error { return s.run(false) }

// run is start; a respawn does nothing once the soak has stopped the
// process (halted).
func (s *speakerProc) run(respawn bool) error {
	logPath := filepath.Join(s.cfg.Dir, "logs", s.name+".log")
	var from int64
	if st, err := os.Stat(logPath); err == nil {
		from = st.Size() // the log of its earlier lives
	}
	exited, ready, err := s.launch(logPath, respawn)
	if err != nil {
		return err
	}
	defer close(ready)
	s.mu.Lock()
	printed, conns := s.printed, s.connsAtStart
	s.mu.Unlock()
	return s.awaitStarted(logPath, from, conns, exited, printed)
}

// launch starts the process and returns the channel closed when it has
// ended, and the one its starter closes once it said it started.
func (s *speakerProc) launch(logPath string, respawn bool) (exitedC <-chan struct{}, readyC chan struct{}, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case respawn && s.halted:
		return nil, nil, errHalted
	case s.cmd != nil:
		return nil, nil, fmt.Errorf("chaos: %s is running already", s.name)
	}
	s.halted = false
	var addrs []string
	for _, p := range s.proxies {
		addrs = append(addrs, p.Addr())
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(s.cfg.binary(), s.cfg.argv(s.name, addrs, s.rng, len(s.lives)+1)...)
	cmd.Stdout, cmd.Stderr = log, log
	var ids *os.File // the read end of its stdout, for the sink
	printed := make(chan struct{})
	if s.sink != nil {
		var w *os.File
		if ids, w, err = os.Pipe(); err != nil {
			log.Close()
			return nil, nil, err
		}
		defer w.Close() // the child has its own copy once started
		cmd.Stdout = w
	}
	// Its own process group, and killed with us: no process outlives a soak.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Counted before it starts: it may connect before Start returns.
	s.connsAtStart = s.conns()
	if err := cmd.Start(); err != nil {
		log.Close()
		if ids != nil {
			ids.Close()
		}
		return nil, nil, fmt.Errorf("chaos: start %s: %w", s.name, err)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		if ids != nil {
			readOutput(s.name, ids, s.sink, printed)
			ids.Close()
		}
	}()
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		<-copied // every ID it printed is in out.txt before it counts as ended
		log.Close()
		status, sig := 0, syscall.Signal(0)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				sig = ws.Signal()
			}
		}
		s.mu.Lock()
		s.status, s.endedBy = status, sig
		l := &s.lives[len(s.lives)-1]
		l.To, l.Status, l.Signal = time.Now(), status, sig
		s.mu.Unlock()
		close(exited)
		s.endedOnItsOwn(cmd)
	}()
	ready := make(chan struct{})
	s.cmd, s.exited, s.ready, s.printed, s.started = cmd, exited, ready, printed, cmd.Process.Pid
	s.lives = append(s.lives, Span{From: time.Now()})
	return exited, ready, nil
}

// signal sends sig to the running process, if any.
func (s *speakerProc) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

// stop sends sig and waits until the process is gone, at most limit; then
// it is killed. It returns how the process ended, as an Exit.
func (s *speakerProc) stop(sig syscall.Signal, limit time.Duration) Exit {
	s.mu.Lock()
	s.halted = true
	cmd, exited, ready := s.cmd, s.exited, s.ready
	s.mu.Unlock()
	if cmd == nil {
		return Exit{Name: s.name}
	}
	// A signal before the process handles it would end it outright.
	select {
	case <-ready:
	case <-time.After(startLimit):
	}
	select {
	case <-exited:
		// It ended on its own before the signal: its status answers no
		// SIGTERM of ours (a respawn is on its way, and now halted).
		s.mu.Lock()
		if s.cmd == cmd {
			s.cmd, s.exited = nil, nil
		}
		s.mu.Unlock()
		return Exit{Name: s.name, Before: true}
	default:
	}
	start := time.Now()
	_ = cmd.Process.Signal(sig)
	if sig == syscall.SIGTERM {
		_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped process must run to exit
	}
	out := Exit{Name: s.name}
	select {
	case <-exited:
		s.mu.Lock()
		out.Status, out.Signal = s.status, s.endedBy
		s.mu.Unlock()
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-exited
		out.Killed = true
	}
	out.Took = time.Since(start)
	s.mu.Lock()
	s.cmd, s.exited = nil, nil
	s.mu.Unlock()
	return out
}

// lastPid is the id of the process started last, running or not.
func (s *speakerProc) lastPid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// network applies f to every proxy of the speaker.
func (s *speakerProc) network(f func(*faultproxy.Proxy)) {
	for _, p := range s.proxies {
		f(p)
	}
}

func (s *speakerProc) closeProxies() {
	for _, p := range s.proxies {
		p.Close()
	}
}
