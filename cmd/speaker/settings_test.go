package main

import (
	"os"
	"strings"
	"testing"
)

// An exported ZK_SERVERS is easy to forget about, so an error in the
// servers names the variable too whenever it is set; otherwise only the flag.
func TestBadServersNameTheEnvironmentVariableWhenSet(t *testing.T) {
	t.Setenv("ZK_SERVERS", "")
	_, err := parseServers("")
	if err == nil || !strings.HasPrefix(err.Error(), "--servers (or $ZK_SERVERS): must not be empty") {
		t.Errorf("with ZK_SERVERS set: %v", err)
	}
}

func TestBadServersNameOnlyTheFlagWithoutTheVariable(t *testing.T) {
	t.Setenv("ZK_SERVERS", "") // restored after the test
	if err := os.Unsetenv("ZK_SERVERS"); err != nil {
		t.Fatal(err)
	}
	_, err := parseServers("localhost")
	if err == nil || err.Error() != `--servers: "localhost" is not host:port` {
		t.Errorf("without ZK_SERVERS: %v", err)
	}
}
