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

// answers asks one server ruok and reports whether any reply came back.
func answers(ctx context.Context, addr string) bool {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write([]byte("ruok")); err != nil {
		return false
	}
	var b [1]byte
	n, _ := conn.Read(b[:])
	return n > 0
}
