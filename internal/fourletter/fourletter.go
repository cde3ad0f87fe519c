// Package fourletter asks ZooKeeper servers about themselves with the
// four-letter words (srvr, wchc, ruok...): how `speaker status` shows an
// ensemble and who watches what, how `speaker bench` counts the requests a
// failover costs, and how the test harness knows a server is up.
package fourletter

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ServerInfo is what a ZooKeeper server says about itself when asked with
// the four-letter word srvr: how `speaker status` shows an ensemble, and how
// `speaker bench` counts the requests a failover costs.
type ServerInfo struct {
	// Addr is the host:port that was asked.
	Addr string
	// Mode is "leader", "follower", "observer", "standalone", or "down"
	// when the server did not answer (or answered without serving, as a
	// server without quorum does).
	Mode string
	// Received is the number of packets the server has received since it
	// started or since its statistics were last reset.
	Received int64
	// Zxid is the last transaction the server has seen, 0 when unknown.
	Zxid int64
	// Connections is the number of client connections it holds now.
	Connections int
}

// FourLetterWord sends one of ZooKeeper's four-letter commands ("srvr",
// "mntr", "ruok"...) to addr and returns the whole answer. The server must
// allow the word in 4lw.commands.whitelist; ensemble.sh allows them all.
func FourLetterWord(ctx context.Context, addr, word string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(2 * time.Second)
	}
	_ = conn.SetDeadline(deadline)
	if _, err := io.WriteString(conn, word); err != nil {
		return "", err
	}
	out, err := io.ReadAll(conn)
	return string(out), err
}

// Srvr asks addr for its srvr statistics. A server that is down or out of
// quorum is not an error: its Mode is "down". go-zookeeper's FLWSrvr is not
// used because it cannot parse the version line of Debian's build.
func Srvr(ctx context.Context, addr string) ServerInfo {
	info := ServerInfo{Addr: addr, Mode: "down"}
	out, err := FourLetterWord(ctx, addr, "srvr")
	if err != nil {
		return info
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch key {
		case "Mode":
			info.Mode = value
		case "Received":
			info.Received, _ = strconv.ParseInt(value, 10, 64)
		case "Connections":
			info.Connections, _ = strconv.Atoi(value)
		case "Zxid":
			info.Zxid, _ = strconv.ParseInt(strings.TrimPrefix(value, "0x"), 16, 64)
		}
	}
	return info
}

// String reads like a line of `speaker status`.
func (s ServerInfo) String() string {
	return fmt.Sprintf("%s %s", s.Addr, s.Mode)
}
