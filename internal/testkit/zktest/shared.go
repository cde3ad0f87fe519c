package zktest

import (
	"strings"
	"sync"
)

// The shared server: one standalone ZooKeeper per test binary, started by
// Main, for every test whose faults are on its own processes, sessions or
// proxies and never on the server itself. A JVM start costs about a second
// of CPU; sharing one lets tests that only wait run side by side, each on
// its own znode path (Path), instead of each paying for a server.
var (
	sharedMu sync.Mutex
	shared   *Cluster
)

// Shared returns the standalone server that Main started for this test
// binary. A test that kills, freezes or wipes a server starts its own with
// Start instead. Under -short it skips, as Start does.
func Shared(t TB) *Cluster {
	t.Helper()
	requireZooKeeper(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil {
		t.Fatalf("zktest: no shared server: the package's TestMain must call zktest.Main")
	}
	return shared
}

// Named is what Path needs of a test: its name.
type Named interface{ Name() string }

// Path returns a top-level znode path of the test's own, from its name:
// tests that share a server and run in parallel must not meet in one
// election or lock. Subtests get a path each, beside their parent's. No
// parent is shared: a test with --auth creates its parents with its ACL,
// and a shared one would lock every other test out.
func Path(t Named) string {
	var b strings.Builder
	b.WriteString("/")
	for _, r := range t.Name() {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	return b.String()
}
