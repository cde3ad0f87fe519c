package chaos

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// errHalted refuses a respawn after the soak stopped the process.
var errHalted = errors.New("chaos: stopped by the soak")

// respawnPause is how long a contender that ended on its own rests before
// it contends again.
const respawnPause = 100 * time.Millisecond

// endedOnItsOwn starts the process again, after respawnPause, when the
// recipe's processes end on their own (Recipe.Respawns) and cmd ended so:
// the soak did not stop it.
func (s *speakerProc) endedOnItsOwn(cmd *exec.Cmd) {
	if !s.cfg.respawns(s.name) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != cmd || s.halted {
		return // stopped by the soak, which notes the exit
	}
	s.cmd, s.exited, s.ready = nil, nil, nil
	s.respawning.Add(1)
	go func() {
		defer s.respawning.Done()
		time.Sleep(respawnPause)
		_ = s.run(true) // errHalted once the soak has stopped it meanwhile
	}()
}

// halt stops the process for good, at the soak's end: no respawn after it.
func (s *speakerProc) halt() {
	s.stop(syscall.SIGKILL, time.Second)
	s.respawning.Wait() // a respawn pending now finds the process halted
}

// Span is one life of a process: from its start to its end (zero while it
// runs), and how it ended.
type Span struct {
	From, To time.Time
	Status   int
	Signal   syscall.Signal
}

// livesOf returns when each of the process's lives ran.
func (s *speakerProc) livesOf() []Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Span(nil), s.lives...)
}
