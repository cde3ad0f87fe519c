package chaos

import (
	"fmt"
	"sync"
)

// faultLines keeps the progress lines in the order the faults began. A
// fault is printed once it is over, with how it went ("for 1.2s",
// "restarted as pid 4711"); one or two hold at once, so a short fault can
// end while a longer one that began before it still holds. Its line
// waits for the earlier fault's, so that the lines read as the faults
// came, as faults.log lists them.
type faultLines struct {
	mu      sync.Mutex
	issued  int            // tickets handed out: faults begun
	printed int            // the ticket whose line is due next
	ready   map[int]string // lines of faults over, waiting for an earlier one
}

// expectFault takes the next place in the progress lines for a fault
// about to begin; record fills it in.
func (s *soak) expectFault() int {
	s.lines.mu.Lock()
	defer s.lines.mu.Unlock()
	s.lines.issued++
	return s.lines.issued - 1
}

// record adds a fault to the log, and prints its progress line, with
// every line that waited for it, in the order the faults began.
func (s *soak) record(ticket int, f Fault) {
	s.mu.Lock()
	s.faults = append(s.faults, f)
	s.mu.Unlock()
	words := s.cfg.words()
	line := fmt.Sprintf("chaos: +%5.1fs  %-13s %-22s %s\n", f.Start.Sub(s.began).Seconds(), words.kindName(f.Kind), words.marked(f), f.Note)
	l := &s.lines
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ready == nil {
		l.ready = map[int]string{}
	}
	l.ready[ticket] = line
	for {
		next, ok := l.ready[l.printed]
		if !ok {
			return
		}
		fmt.Fprint(s.cfg.Progress, next)
		delete(l.ready, l.printed)
		l.printed++
	}
}
