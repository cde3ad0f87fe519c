package fourletter

import (
	"context"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// Members is the list of servers to ask about sessions, and whether it is
// the whole ensemble: each server knows only the sessions connected to it,
// so a session on a server left out cannot be seen.
type Members struct {
	// Addrs are the client addresses, the servers given first.
	Addrs []string
	// Size is the number of servers in /zookeeper/config; 0 when it lists
	// none (standalone).
	Size int
	// Known is true when /zookeeper/config was read.
	Known bool
	// Complete is true when Addrs hold every server of the ensemble.
	Complete bool
}

// Getter reads a znode, as recoverable.RecoverableZookeeper.Get does
// (this package sits below recoverable, which asks servers their mode).
type Getter func(ctx context.Context, path string) ([]byte, *zk.Stat, error)

// ReadMembers unions the servers given with those that /zookeeper/config
// lists (ZooKeeper 3.5 and later publish it; a server line names its client
// port after a ";" when its config does, as ensemble.sh writes them). When
// the config cannot be read now, as while status itself is disconnected, it
// keeps what it knew before.
func ReadMembers(ctx context.Context, get Getter, given []string, before Members) Members {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	data, _, err := get(ctx, "/zookeeper/config")
	if err != nil {
		if before.Addrs != nil {
			return before
		}
		return Members{Addrs: given}
	}
	return parseMembers(string(data), given)
}

// parseMembers reads the server lines of /zookeeper/config:
//
//	server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181
//
// Without the part after the ";", the line says nothing of where clients
// connect, and the servers given must do.
func parseMembers(config string, given []string) Members {
	m := Members{Addrs: slices.Clone(given), Known: true}
	named := 0 // server lines with a client address
	for _, line := range strings.Split(config, "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || !strings.HasPrefix(key, "server.") {
			continue
		}
		m.Size++
		if addr, ok := clientAddr(value); ok {
			named++
			if !slices.Contains(m.Addrs, addr) {
				m.Addrs = append(m.Addrs, addr)
			}
		}
	}
	// Without client ports, trust the servers given when there are as many
	// as the config lists (and a standalone server lists none).
	m.Complete = named == m.Size || m.Size <= len(given)
	return m
}

// clientAddr finds the client address in the value of a server line,
// "host:peer:election[:role][;[clientHost:]clientPort]". A client host of
// 0.0.0.0 (listen everywhere) is reached at the server's own host.
func clientAddr(value string) (string, bool) {
	peer, client, ok := strings.Cut(value, ";")
	if !ok || client == "" {
		return "", false
	}
	host, port, err := net.SplitHostPort(client)
	if err != nil {
		host, port = "", client // the port alone
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = peerHost(peer)
	}
	return net.JoinHostPort(host, port), true
}

// peerHost is the host of "host:peer:election...", "[::1]:..." included.
func peerHost(peer string) string {
	if rest, ok := strings.CutPrefix(peer, "["); ok {
		host, _, _ := strings.Cut(rest, "]")
		return host
	}
	host, _, _ := strings.Cut(peer, ":")
	return host
}
