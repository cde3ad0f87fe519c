package zktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"zkspeaker/internal/testkit/prebuilt"
)

// MainCommand is Main for a command's package: it first builds the command
// in the working directory (with buildFlags) into a temporary folder, and
// points *bin at the binary. ZK_SERVERS and ZK_AUTH are cleared first: the
// commands under test, and the servers zktest starts, inherit the
// environment, and an exported one would change them.
func MainCommand(m *testing.M, servers *[]string, bin *string, buildFlags ...string) int {
	return mainCommandOf(m, servers, bin, 1, buildFlags...)
}

// MainCommandEnsemble is MainCommand with a 3-server ensemble as the
// package's shared servers, for a command whose tests need one anyway:
// one ensemble serves them all, and no standalone server is started
// beside it.
func MainCommandEnsemble(m *testing.M, servers *[]string, bin *string, buildFlags ...string) int {
	return mainCommandOf(m, servers, bin, 3, buildFlags...)
}

func mainCommandOf(m *testing.M, servers *[]string, bin *string, n int, buildFlags ...string) int {
	dir, err := os.MkdirTemp("", "zktest-command-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*bin = filepath.Join(dir, filepath.Base(wd))
	os.Unsetenv("ZK_SERVERS")
	os.Unsetenv("ZK_AUTH")
	if p, ok := prebuiltCommand(filepath.Base(wd), buildFlags); ok {
		*bin = p
		return mainOf(m, servers, n)
	}
	args := append(append([]string{"build"}, buildFlags...), "-o", *bin, ".")
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	return mainOf(m, servers, n)
}

// SkipShort skips t under -short, the one mode that runs unit tests alone:
// a test that needs a real ZooKeeper server calls it first. Without
// -short, a missing ZooKeeper fails the test (see Start), never skips it.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real ZooKeeper server; runs without -short")
	}
}

// prebuiltCommand is the command make test built for the run, when the
// flags are ones it builds with: none, or -race alone.
func prebuiltCommand(name string, buildFlags []string) (string, bool) {
	switch {
	case len(buildFlags) == 0:
		return prebuilt.Command(name, false)
	case len(buildFlags) == 1 && buildFlags[0] == "-race":
		return prebuilt.Command(name, true)
	}
	return "", false
}
