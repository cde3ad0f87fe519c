package fourletter

import (
	"context"
	"net"
	"time"
)

// AnyAnswers reports whether any of servers answers as a ZooKeeper server
// does: it accepts a connection and replies to ruok (with "imok", or with
// a refusal when ruok is not allowed; both prove a server is there). It
// asks them all at once and returns at the first reply, so that a command
// can tell within a second that nothing runs at the address it was given,
// where the client library would retry for as long as it is let.
func AnyAnswers(ctx context.Context, servers []string) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	replies := make(chan bool, len(servers))
	for _, addr := range servers {
		go func() { replies <- answers(ctx, addr) }()
	}
	for range servers {
		if <-replies {
			return true
		}
	}
	return false
}

// answers asks one server ruok and reports whether any reply came back
// before ctx ends. A server that accepts the connection but closes it
// unanswered is asked again: one that has just lost its quorum closes its
// clients' connections while it looks for a new leader, and answers again
// a moment later. A refused connection means nothing listens: no retry.
func answers(ctx context.Context, addr string) bool {
	for {
		replied, listening := sendRuok(ctx, addr)
		if replied || !listening || ctx.Err() != nil {
			return replied
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
	}
}

// sendRuok sends ruok once: whether a reply came, and whether the connection was
// accepted at all.
func sendRuok(ctx context.Context, addr string) (replied, listening bool) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false, false
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write([]byte("ruok")); err != nil {
		return false, true
	}
	var b [1]byte
	n, _ := conn.Read(b[:])
	return n > 0, true
}
