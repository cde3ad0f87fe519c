package scripttest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ephemeralRange reads the kernel's range of ports for outgoing
// connections, the one ensemble.sh warns about.
func ephemeralRange(t *testing.T) (lo, hi int) {
	t.Helper()
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(string(data), &lo, &hi); err != nil {
		t.Fatalf("ip_local_port_range %q: %v", data, err)
	}
	return lo, hi
}

// ephemeralPort is a port the kernel handed out for a listener, so one in
// its ephemeral range, and free once the listener is closed.
func ephemeralPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// hold keeps a port busy until the test ends, so that ensemble.sh start
// refuses it without starting a server. A port some other test's server
// already listens on is busy too, which is all the test needs: the edge
// case's port is fixed by the kernel's range, and the suite's servers,
// running beside it, may have it.
func hold(t *testing.T, port int) {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if errors.Is(err, syscall.EADDRINUSE) {
		return
	}
	if err != nil {
		t.Fatalf("port %d: %v", port, err)
	}
	t.Cleanup(func() { l.Close() })
}

// A base port inside the kernel's ephemeral range works, but ensemble.sh
// says why it is a poor choice: every outgoing connection takes its local
// port from that range, so one can take a server's port while the server
// is down, and the server then cannot start again. Outside the range it
// says nothing. The warning comes before any check of the ports, so the
// cases that need no server use a port held busy, and start none.
func TestEnsembleScriptWarnsOfEphemeralPorts(t *testing.T) {
	t.Parallel()
	lo, hi := ephemeralRange(t)
	e := newEnsembleScript(t)
	killLeftovers(t, e.dir)
	e.base = ephemeralPort(t)
	out := e.must("start", "1")
	if want := fmt.Sprintf("port %d (server 1's client port) is in the kernel's ephemeral range %d-%d", e.base, lo, hi); !strings.Contains(out, want) {
		t.Errorf("start 1 with ZK_BASE_PORT=%d said:\n%s\nwant a warning: %s", e.base, out, want)
	}
	if m := e.modes(); m["1"] != "standalone" {
		t.Fatalf("start 1 with ZK_BASE_PORT=%d: %v, want the server started all the same", e.base, m)
	}

	// Three servers whose client ports lie below the range, but whose
	// election ports reach into it: the warning names the first of those.
	edge := &ensembleScript{t: t, dir: filepath.Join(t.TempDir(), "edge"), base: lo - 2001}
	hold(t, edge.base)
	out, err := edge.run("start", "3")
	if err == nil {
		t.Fatalf("start 3 on a held port %d succeeded:\n%s", edge.base, out)
	}
	if want := fmt.Sprintf("port %d (server 2's election port) is in the kernel's ephemeral range", lo); !strings.Contains(out, want) {
		t.Errorf("start 3 with ZK_BASE_PORT=%d said:\n%s\nwant a warning: %s", edge.base, out, want)
	}

	// Clear of the range, as the test kit's ports are: no warning.
	quiet := &ensembleScript{t: t, dir: filepath.Join(t.TempDir(), "quiet"), base: freeBase(t)}
	hold(t, quiet.base)
	out, err = quiet.run("start", "3")
	if err == nil || !strings.Contains(out, "already in use") {
		t.Fatalf("start 3 on a held port %d: %v, want a refusal:\n%s", quiet.base, err, out)
	}
	if strings.Contains(out, "ephemeral") {
		t.Errorf("start 3 with ZK_BASE_PORT=%d, clear of %d-%d, warned:\n%s", quiet.base, lo, hi, out)
	}
}
