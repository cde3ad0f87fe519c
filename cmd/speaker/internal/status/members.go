package status

import (
	"context"
	"net"
	"slices"
	"strings"
	"time"

	"zkspeaker/recoverable"
)

// members is the list of servers that status asks, and whether it is the
// whole ensemble: each server knows only the sessions connected to it, so a
// session on a server left out cannot be seen.
type members struct {
	addrs []string // client addresses, --servers first
	size  int      // servers in /zookeeper/config; 0 when it has none (standalone)
	known bool     // /zookeeper/config was read
	// complete is true when addrs hold every server of the ensemble.
	complete bool
}

// readMembers unions the servers given with those that /zookeeper/config
// lists (ZooKeeper 3.5 and later publish it; a server line names its client
// port after a ";" when its config does, as ensemble.sh writes them). When
// the config cannot be read now, as while status itself is disconnected, it
// keeps what it knew before.
func readMembers(ctx context.Context, rz *recoverable.RecoverableZookeeper, given []string, before members) members {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	data, _, err := rz.Get(ctx, "/zookeeper/config")
	if err != nil {
		if before.addrs != nil {
			return before
		}
		return members{addrs: given}
	}
	return parseMembers(string(data), given)
}

// parseMembers reads the server lines of /zookeeper/config:
//
//	server.1=10.0.0.1:2888:3888:participant;0.0.0.0:2181
//
// Without the part after the ";", the line says nothing of where clients
// connect, and the servers given must do.
func parseMembers(config string, given []string) members {
	m := members{addrs: slices.Clone(given), known: true}
	named := 0 // server lines with a client address
	for _, line := range strings.Split(config, "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || !strings.HasPrefix(key, "server.") {
			continue
		}
		m.size++
		if addr, ok := clientAddr(value); ok {
			named++
			if !slices.Contains(m.addrs, addr) {
				m.addrs = append(m.addrs, addr)
			}
		}
	}
	// Without client ports, trust the servers given when there are as many
	// as the config lists (and a standalone server lists none).
	m.complete = named == m.size || m.size <= len(given)
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
