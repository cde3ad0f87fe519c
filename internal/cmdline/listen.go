package cmdline

import (
	"errors"
	"fmt"
	"net"
	"strconv"
)

// ParseListen checks a host:port flag to serve on (zkview's --listen, the
// --metrics of five commands): an IP address or localhost, and a port from
// 0 (a free one) to 65535. example is what a good value looks like.
func ParseListen(flag, addr, example string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", BadFlag(flag, "%q is not host:port (such as %s)", addr, example)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", BadFlag(flag, "%q: the port must be a number from 0 to 65535", addr)
	}
	if host != "" && host != "localhost" && net.ParseIP(host) == nil {
		return "", BadFlag(flag, "%q: the host must be an IP address or localhost", addr)
	}
	return addr, nil
}

// Listen takes the address of a flag checked by ParseListen. A failure
// (the port is in use) is one line: failed ("cannot serve metrics"), the
// flag and its address, and the system's reason alone.
func Listen(flag, addr, failed string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			err = op.Err
		}
		return nil, fmt.Errorf("%s on --%s %s: %w", failed, flag, addr, err)
	}
	return ln, nil
}
