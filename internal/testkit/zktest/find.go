// Package zktest runs real Apache ZooKeeper servers for tests: standalone
// or as an ensemble, with faults injected for real: servers killed, and TCP
// connections reset or silently cut by a proxy. It finds ZooKeeper the way
// ensemble-scripts/install-zookeeper.sh does, by running zk-env.sh.
package zktest

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"zkspeaker/internal/ensemble"
)

// install is what zk-env.sh found.
type install struct {
	java, classpath string
}

var (
	findOnce  sync.Once
	found     install
	findError error
)

// RepoRoot returns the repository's top folder: the one that holds
// ensemble-scripts, found by ensemble.Scripts.
func RepoRoot() (string, error) {
	scripts, err := ensemble.Scripts()
	return filepath.Dir(scripts), err
}

// findZooKeeper runs ensemble-scripts/zk-env.sh once per test binary.
func findZooKeeper() (install, error) {
	findOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			findError = err
			return
		}
		var stderr bytes.Buffer
		cmd := exec.Command("bash", filepath.Join(root, "ensemble-scripts", "zk-env.sh"))
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			findError = fmt.Errorf("%s (%w)", strings.TrimSpace(stderr.String()), err)
			return
		}
		vars := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				vars[k] = v
			}
		}
		found = install{java: vars["ZK_JAVA"], classpath: vars["ZK_CLASSPATH"]}
		if found.java == "" || found.classpath == "" {
			findError = fmt.Errorf("zk-env.sh printed no ZK_JAVA or ZK_CLASSPATH: %q", out)
		}
	})
	return found, findError
}

// RequireZooKeeper fails the test, never skips it, when ZooKeeper is
// missing; the script tests call it before they run a script that starts
// servers.
func RequireZooKeeper(t TB) { requireZooKeeper(t) }

// requireZooKeeper fails the test, never skips it, when ZooKeeper is missing:
// a suite that silently skips proves nothing. Under -short it skips, since
// -short is the unit-only mode.
func requireZooKeeper(t TB) install {
	t.Helper()
	if testing.Short() {
		t.Skip("testing.Short() is set: -short runs unit tests only, and this one needs a real ZooKeeper server")
	}
	inst, err := findZooKeeper()
	if err != nil {
		t.Fatalf("ZooKeeper not found: run `make deps` (%v)", err)
	}
	return inst
}
