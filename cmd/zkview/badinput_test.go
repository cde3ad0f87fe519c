package main_test

import (
	"bytes"
	"net"
	"os/exec"
	"strings"
	"testing"
)

// exit runs zkview to its end and returns its stdout, stderr and status.
func exit(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// TestBadInput: bad flags are one line naming the flag, status 2, and
// nothing is served; a port in use is one line, status 1.
func TestBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "nonsense"}, `zkview: --listen: "nonsense" is not host:port (such as 127.0.0.1:8181)`},
		{[]string{"--listen", "127.0.0.1:99999"}, `zkview: --listen: "127.0.0.1:99999": the port must be a number from 0 to 65535`},
		{[]string{"--election", "election"}, `zkview: --election: "election" is not a znode path below / (such as /election)`},
		{[]string{"--group", "/zoo/"}, `zkview: --group: "/zoo/" is not a znode path below / (such as /election)`},
		{[]string{"--lock", "/"}, `zkview: --lock: "/" is not a znode path below / (such as /election)`},
		{[]string{"--barrier", "step"}, `zkview: --barrier: "step" is not a znode path below / (such as /election)`},
		{[]string{"--queue", "/jobs/"}, `zkview: --queue: "/jobs/" is not a znode path below / (such as /election)`},
		{[]string{"--servers", "nohost"}, ``},
		{[]string{"--session-timeout", "soon"}, ``},
		{[]string{"extra"}, `zkview: takes no arguments, got "extra" (zkview [options])`},
		{[]string{"--colour"}, ``},
	} {
		out, errOut, code := exit(t, c.args...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || out != "" || len(lines) != 1 || !strings.HasPrefix(errOut, "zkview: ") || (c.want != "" && lines[0] != c.want) {
			t.Errorf("zkview %s: status %d, stdout %q, stderr %q; want status 2, one line %q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
}

// TestPortInUse: a --listen address taken by another process is one line
// naming it, status 1, and nothing else starts.
func TestPortInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, errOut, code := exit(t, "--servers", "127.0.0.1:1", "--listen", ln.Addr().String())
	want := "zkview: cannot serve on --listen " + ln.Addr().String() + ": bind: address already in use\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("status %d, stdout %q, stderr %q; want status 1, stderr %q", code, out, errOut, want)
	}
}
