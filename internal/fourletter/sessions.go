package fourletter

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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

// Sessions asks addr, with the four-letter word cons, which sessions have a
// connection to it now. A session that is in no server's list has no
// connection at all: its process died (the session lives on until it
// expires) or it is moving to another server.
func Sessions(ctx context.Context, addr string) ([]int64, error) {
	out, err := ask(ctx, addr, "cons")
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, line := range strings.Split(out, "\n") {
		// " /127.0.0.1:43414[1](queued=0,...,sid=0x100003b42bd0000,lop=...)";
		// a connection that has no session yet, like ours, has no sid.
		_, rest, ok := strings.Cut(line, "sid=0x")
		if !ok {
			continue
		}
		hex, _, _ := strings.Cut(rest, ",")
		id, err := strconv.ParseUint(strings.TrimSuffix(hex, ")"), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("fourletter: cons from %s: bad session in %q", addr, line)
		}
		ids = append(ids, int64(id))
	}
	return ids, nil
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
