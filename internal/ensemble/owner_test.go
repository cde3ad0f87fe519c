package ensemble

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ownerEnv makes the test binary an owner: it starts one server with Start,
// prints the ensemble's folder, and waits to be killed.
const ownerEnv = "ZKSPEAKER_ENSEMBLE_OWNER"

func runOwner() int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := Start(ctx, 1, "ZK_TICK_MS=200")
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println(e.dir)
	time.Sleep(time.Minute) // the test kills us first
	e.Stop()
	return 0
}

// An ensemble started by a program does not outlive it, however the
// program ends: killed with SIGKILL, which no handler sees, its server is
// gone within seconds, and so is the folder.
func TestServersDoNotOutliveTheirOwner(t *testing.T) {
	if testing.Short() {
		t.Skip("testing.Short() is set: -short runs unit tests only, and this one starts a real ZooKeeper server")
	}
	t.Parallel()
	owner := exec.Command(os.Args[0])
	owner.Env = append(os.Environ(), ownerEnv+"=1")
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	dir := strings.TrimSpace(line)
	if err != nil || !filepath.IsAbs(dir) {
		_ = owner.Process.Kill()
		_ = owner.Wait()
		t.Fatalf("the owner did not start its server: %q, %v (run make deps)", line, err)
	}
	if len(serversIn(t, dir)) != 1 {
		_ = owner.Process.Kill()
		_ = owner.Wait()
		t.Fatalf("no server of %s runs before the kill", dir)
	}
	_ = owner.Process.Signal(syscall.SIGKILL)
	_ = owner.Wait() // reaped, as a shell reaps its children: a zombie still counts as there
	// The sentry looks every second, then gives the kill a second before
	// it removes the folder; the rest is slack for a busy machine.
	deadline := time.Now().Add(10 * time.Second)
	for len(serversIn(t, dir)) > 0 || exists(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("10 s after its owner's SIGKILL: servers %v still run, folder there: %v", serversIn(t, dir), exists(dir))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// serversIn returns the pids of the processes whose command line names a
// zoo.cfg anywhere under dir.
func serversIn(t *testing.T, dir string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), dir+"/") && strings.Contains(string(b), "zoo.cfg") {
			pids = append(pids, strings.Split(f, "/")[2])
		}
	}
	return pids
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
