package chaos

import (
	"bufio"
	"context"
	"io"
	"strings"
	"time"
)

// LineSink receives what a process prints on stdout, a whole line at a
// time, with n counting its lines from 1 in this life and at the moment it
// arrived: the soak is alive throughout, so a process killed mid-line
// leaves only a torn piece, which is dropped.
type LineSink interface {
	Line(name string, n uint64, at time.Time, text string)
}

// readOutput feeds r's whole lines to sink until EOF, and closes first at
// the first one.
func readOutput(name string, r io.Reader, sink LineSink, first chan<- struct{}) {
	br := bufio.NewReader(r)
	for n := uint64(1); ; n++ {
		text, err := br.ReadString('\n')
		if err != nil {
			return // EOF; a piece without its newline is torn, and dropped
		}
		if n == 1 {
			close(first)
		}
		sink.Line(name, n, time.Now(), strings.TrimSuffix(text, "\n"))
	}
}

// loseEverything is the DataLoss fault: every server killed and wiped,
// started afresh, and once a majority serves, the recipe's restore, as an
// operator would run it. It returns the fault log's note.
func (s *soak) loseEverything(ctx context.Context, servers []int) string {
	var notes []string
	for _, id := range servers {
		if err := s.ens.Kill(ctx, id); err != nil {
			notes = append(notes, err.Error())
		}
	}
	for _, id := range servers {
		if err := s.ens.Wipe(id); err != nil {
			notes = append(notes, err.Error())
		}
	}
	for _, id := range servers {
		if err := s.ens.StartServer(ctx, id); err != nil {
			notes = append(notes, err.Error())
		}
	}
	s.awaitQuorum(ctx)
	if err := s.op.reconnect(); err != nil {
		notes = append(notes, err.Error())
	}
	if s.running.Restore != nil {
		notes = append(notes, s.running.Restore(ctx))
	}
	return strings.Join(notes, "; ")
}
