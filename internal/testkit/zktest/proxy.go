package zktest

import (
	"testing"

	"zkspeaker/internal/faultproxy"
)

// Proxy is a fault-injecting TCP proxy in front of one server (see
// faultproxy).
type Proxy = faultproxy.Proxy

// ZooKeeper's request opcodes that the tests trap on (Proxy.NotifyReply).
const (
	OpExists  = faultproxy.OpExists
	OpGetData = faultproxy.OpGetData
	OpMulti   = faultproxy.OpMulti
	OpSync    = faultproxy.OpSync
)

// NewProxy listens on a free loopback port and forwards to target until the
// test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := faultproxy.Listen(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
