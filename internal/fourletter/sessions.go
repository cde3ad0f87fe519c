package fourletter

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Watches asks addr, with the four-letter word wchc, which paths each of
// its sessions watches. ZooKeeper lists only data watches there (those
// left by exists and get), not children watches, and only for the sessions
// connected to that very server: ask every server of an ensemble and merge.
// A server that does not allow wchc, or does not serve, answers with an
// error here.
func Watches(ctx context.Context, addr string) (map[int64][]string, error) {
	out, err := ask(ctx, addr, "wchc")
	if err != nil {
		return nil, err
	}
	watches := map[int64][]string{}
	var (
		session int64
		inside  bool // after a session line
	)
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "0x"):
			id, err := strconv.ParseUint(strings.TrimSpace(line[2:]), 16, 64)
			if err != nil {
				return nil, fmt.Errorf("fourletter: wchc from %s: bad session %q", addr, line)
			}
			session, inside = int64(id), true
		case strings.HasPrefix(line, "\t") && inside:
			watches[session] = append(watches[session], strings.TrimSpace(line))
		}
	}
	return watches, nil
}

// Conn is one session's connection to a server, as cons lists it.
type Conn struct {
	ID int64
	// Timeout is the session timeout the server granted the session (to=).
	Timeout time.Duration
	// Heard is when the server last answered the session (lresp=): its
	// requests and its pings, one every third of Timeout when idle. Zero
	// when it cannot be told on this machine's clock (see heardAt).
	Heard time.Time
}

// Sessions asks addr, with the four-letter word cons, which sessions have a
// connection to it now, with their timeouts and when the server last heard
// from each. A session that is in no server's list has no connection at
// all: its process died (the session lives on until it expires) or it is
// moving to another server.
func Sessions(ctx context.Context, addr string) ([]Conn, error) {
	out, err := ask(ctx, addr, "cons")
	if err != nil {
		return nil, err
	}
	now, mono := time.Now(), monotonicMillis()
	var conns []Conn
	for _, line := range strings.Split(out, "\n") {
		// " /127.0.0.1:43414[1](queued=0,...,sid=0x100003b42bd0000,lop=PING,
		// est=1795702177410,to=5000,...,lresp=1221975,...)"; a connection
		// that has no session yet, like ours, has no sid.
		_, stats, ok := strings.Cut(line, "(")
		if !ok || !strings.Contains(stats, "sid=0x") {
			continue
		}
		f := map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(strings.TrimSpace(stats), ")"), ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				f[k] = v
			}
		}
		id, err := strconv.ParseUint(strings.TrimPrefix(f["sid"], "0x"), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("fourletter: cons from %s: bad session in %q", addr, line)
		}
		c := Conn{ID: int64(id)}
		if ms, err := strconv.ParseInt(f["to"], 10, 64); err == nil {
			c.Timeout = time.Duration(ms) * time.Millisecond
		}
		if lresp, err := strconv.ParseInt(f["lresp"], 10, 64); err == nil {
			c.Heard = heardAt(lresp, mono, now, c.Timeout)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

// ask sends word to addr and turns the server's refusals into errors: a
// word left out of 4lw.commands.whitelist, or a server that does not serve
// (no quorum, or a leader election under way), answers with a sentence
// instead of data.
func ask(ctx context.Context, addr, word string) (string, error) {
	out, err := FourLetterWord(ctx, addr, word)
	if err != nil {
		return "", err
	}
	for _, refusal := range []string{"not executed", "not in the whitelist", "not currently serving"} {
		if strings.Contains(out, refusal) {
			return "", fmt.Errorf("fourletter: %s does not answer %s: %s", addr, word, strings.TrimSpace(out))
		}
	}
	return out, nil
}
