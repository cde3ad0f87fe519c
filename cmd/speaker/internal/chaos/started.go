package chaos

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// startLimit bounds the wait for a speaker to say it started.
const startLimit = 20 * time.Second

// awaitStarted waits until the log, past offset from, says the process
// started, or it printed its first line (printed), or it ended (the soak
// reports how), or startLimit. A process whose log says nothing the soak
// can read (no started line) has started once its proxies accepted a
// connection more than conns: a program that connects to ZooKeeper is
// past its start, and its contract asks it to handle SIGTERM by then.
func (s *speakerProc) awaitStarted(logPath string, from int64, conns int, exited, printed <-chan struct{}) error {
	deadline := time.Now().Add(startLimit)
	line := s.cfg.startedLine(s.name)
	for {
		if line == "" && s.conns() > conns {
			return nil
		}
		if data, err := os.ReadFile(logPath); line != "" && err == nil && int64(len(data)) > from &&
			strings.Contains(string(data[from:]), line) {
			return nil
		}
		select {
		case <-exited:
			return nil
		case <-printed:
			return nil
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("chaos: %s did not say it started within %v", s.name, startLimit)
		}
	}
}

// conns is how many connections the process's proxies have accepted, in
// all its lives.
func (s *speakerProc) conns() int {
	n := 0
	for _, p := range s.proxies {
		n += p.Conns()
	}
	return n
}
