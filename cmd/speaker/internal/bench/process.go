package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ProcessUsage is what one speaker process cost over a window; its JSON is
// a line of `speaker bench --json`.
type ProcessUsage struct {
	Process    string  `json:"process"`
	Role       string  `json:"role"`
	Interval   string  `json:"interval"`
	RSSMB      float64 `json:"rss_mb"`
	CPUPercent float64 `json:"cpu_percent"`
	WindowS    float64 `json:"window_s"`
}

// clockTicks is the unit of utime and stime in /proc/PID/stat: USER_HZ,
// 100 on every Linux that Go runs on.
const clockTicks = 100

// MeasureProcesses runs two real speaker processes of the binary exe at a
// 1 s interval, a leader and a follower, and reads their resident memory
// and CPU time from /proc over window.
func MeasureProcesses(ctx context.Context, exe string, servers []string, window time.Duration) ([]ProcessUsage, error) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return nil, fmt.Errorf("measuring a speaker process needs Linux's /proc; use --process-window 0")
	}
	dir, err := os.MkdirTemp("", "zkspeaker-bench-proc-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out.txt")
	path := fmt.Sprintf("/zkspeaker-bench/process-%d", time.Now().UnixNano())
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			_ = p.Process.Signal(syscall.SIGTERM)
			_ = p.Wait()
		}
	}()
	for _, role := range []string{"leader", "follower"} {
		cmd := exec.Command(exe, "--servers", strings.Join(servers, ","), "--path", path, "--name", role,
			"--out", out, "--interval", "1s", "--log-level", "error")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		procs = append(procs, cmd)
		// The first one leads: wait for its first line before starting the next.
		if err := waitForFile(ctx, out, 15*time.Second); err != nil {
			return nil, err
		}
	}
	time.Sleep(2 * time.Second) // let both settle: the follower joins and waits
	before := make([]int64, len(procs))
	for i, p := range procs {
		if before[i], err = cpuTicks(p.Process.Pid); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(window):
	}
	elapsed := time.Since(start)
	var usage []ProcessUsage
	for i, p := range procs {
		after, err := cpuTicks(p.Process.Pid)
		if err != nil {
			return nil, err
		}
		rss, err := rssKB(p.Process.Pid)
		if err != nil {
			return nil, err
		}
		cpu := float64(after-before[i]) / clockTicks / elapsed.Seconds() * 100
		usage = append(usage, ProcessUsage{Process: "speaker", Role: []string{"leader", "follower"}[i], Interval: "1s",
			RSSMB: float64(rss) / 1024, CPUPercent: cpu, WindowS: elapsed.Seconds()})
	}
	return usage, nil
}

func waitForFile(ctx context.Context, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the speaker process did not speak within %v", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cpuTicks reads utime+stime of pid.
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields after it.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime or stime", pid)
	}
	return utime + stime, nil
}

// rssKB reads VmRSS of pid.
func rssKB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}
