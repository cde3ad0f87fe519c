package zktest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"zkspeaker/internal/fourletter"
)

// server is one ZooKeeper JVM.
type server struct {
	id   int
	dir  string
	port int
	inst install

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

func (s *server) configure(peers string) error {
	data := filepath.Join(s.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf(`tickTime=%d
initLimit=10
syncLimit=5
dataDir=%s
clientPort=%d
clientPortAddress=127.0.0.1
maxClientCnxns=0
maxSessionTimeout=%d
4lw.commands.whitelist=*
admin.enableServer=false
%s`, TickTime.Milliseconds(), data, s.port, MaxSessionTimeout.Milliseconds(), peers)
	if err := os.WriteFile(filepath.Join(s.dir, "zoo.cfg"), []byte(cfg), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(data, "myid"), []byte(fmt.Sprintf("%d\n", s.id)), 0o644)
}

// LightJVM are the JVM options of every test server, and of the servers
// the test binaries start through ensemble.sh (ZK_JAVA_OPTS). C1 only, one
// compiler thread: a test server lives seconds, and the optimizing
// compiler's work at start would compete with the tests. A leader
// election waits twice as long between its rounds each time a peer does
// not answer, up to a minute by default: a peer restarted on a busy
// machine then found the others asleep for 10 s and more. One second at
// most keeps the election about as long as the slowest restart.
//
// When make test has made bin/zk.jsa (ensemble-scripts/zk-cds.sh), the
// servers map ZooKeeper's classes from that archive instead of loading
// each: a start takes about 40% less CPU, and the suite starts well over a
// hundred servers on two cores. A JVM that cannot use the archive starts
// without it.
var LightJVM = lightJVM()

func lightJVM() string {
	opts := "-Xmx256m -XX:+UseSerialGC -Xshare:auto -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -Dzookeeper.fastleader.maxNotificationInterval=1000"
	root, err := RepoRoot()
	if err != nil {
		return opts
	}
	archive := filepath.Join(root, "bin", "zk.jsa")
	if st, err := os.Stat(archive); err == nil && st.Size() > 0 && !strings.ContainsAny(archive, " \t") {
		opts += " -XX:SharedArchiveFile=" + archive
	}
	return opts
}

// start launches the JVM in its own process group, so that nothing it
// forks outlives the test.
func (s *server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("server %d already running", s.id)
	}
	logf, err := os.OpenFile(filepath.Join(s.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	args := append(strings.Fields(LightJVM), "-Dzookeeper.jmx.log4j.disable=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
		"-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-cp", s.inst.classpath+":"+s.dir, // ZooKeeper's first: the archive is of that classpath (see LightJVM)
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", filepath.Join(s.dir, "zoo.cfg"))
	cmd := exec.Command(s.inst.java, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start server %d: %w", s.id, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(exited)
	}()
	s.cmd, s.exited = cmd, exited
	return nil
}

// stop signals the server's process group and waits for it to exit.
func (s *server) stop(kill bool) {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// signal sends sig to the server's process group, if it runs.
func (s *server) signal(sig syscall.Signal) {
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

// srvr speaks the four-letter word srvr and returns the answer.
func (s *server) srvr() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return fourletter.FourLetterWord(ctx, s.addr(), "srvr")
}

func (s *server) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

func (s *server) waitServing(timeout time.Duration) error {
	return s.wait(timeout, "serving", func(out string) bool { return strings.Contains(out, "Mode: ") })
}

func (s *server) waitAnswering(timeout time.Duration) error {
	return s.wait(timeout, "answering", func(out string) bool { return out != "" })
}

func (s *server) wait(timeout time.Duration, what string, ok func(string) bool) error {
	deadline := time.Now().Add(timeout)
	for {
		s.mu.Lock()
		exited := s.exited
		s.mu.Unlock()
		select {
		case <-exited:
			return fmt.Errorf("server %d exited before %s; log:\n%s", s.id, what, s.logTail(40))
		default:
		}
		if out, err := s.srvr(); err == nil && ok(out) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server %d not %s after %v; log:\n%s", s.id, what, timeout, s.logTail(40))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *server) logTail(n int) string {
	data, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
