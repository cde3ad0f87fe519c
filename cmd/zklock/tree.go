package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// CMD's tree is every process CMD starts, and every process those start,
// whether they stay in CMD's process group or not: `rsync … &` in a script,
// a tool that calls setsid(2) or daemonizes by forking twice. The lock's
// promise covers all of them, so the watchdog signals all of them, and it
// holds the lock until the last one has ended.
//
// The watchdog is the tree's subreaper (PR_SET_CHILD_SUBREAPER): an
// orphan anywhere below it is handed to it, not to init. Every process of
// the tree therefore stays a descendant of the watchdog until it ends, and
// the watchdog can find it by walking /proc from its own pid, and learns
// its end from wait(2). When wait(2) says that no child is left, no
// process of the tree is left.

// prSetChildSubreaper is prctl(2)'s PR_SET_CHILD_SUBREAPER (Linux 3.4).
const prSetChildSubreaper = 36

// becomeSubreaper makes orphans of CMD's tree our children.
func becomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}

// proc is one process of the tree, as /proc shows it.
type proc struct {
	pid  int
	name string
}

// descendants lists the live processes below pid (zombies, which can no
// longer act, are left out), read from /proc/PID/stat.
func descendants(pid int) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]proc{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		name, state, ppid, ok := readStat(p)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		children[ppid] = append(children[ppid], proc{pid: p, name: name})
	}
	var out []proc
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// readStat reads a process's name, state and parent from /proc/PID/stat:
// "PID (NAME) STATE PPID ...", where NAME may itself hold ") ".
func readStat(pid int) (name string, state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", 0, 0, false
	}
	fields := strings.Fields(string(b[end+1:]))
	if len(fields) < 2 || len(fields[0]) != 1 {
		return "", 0, 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	return string(b[open+1 : end]), fields[0][0], ppid, err == nil
}

// signalTree sends sig to every process below us. For SIGSTOP and
// SIGKILL it looks again until a look finds none it has not signalled: a
// process may fork between a look and its signal, and its child must not
// escape; a stopped or killed process forks no more, so this ends with the
// whole tree signalled. SIGTERM and SIGCONT go out once, to the processes
// there are: a SIGTERM is a request, and the process that a trap starts to
// clean up must not be asked to stop in turn (systemd asks once, too).
func signalTree(sig syscall.Signal) {
	self := os.Getpid()
	sent := map[int]bool{}
	rounds := 1
	if sig == syscall.SIGSTOP || sig == syscall.SIGKILL {
		rounds = 100 // a fork bomb must not hold the watchdog for ever
	}
	for range rounds {
		fresh := false
		for _, p := range descendants(self) {
			if !sent[p.pid] {
				sent[p.pid], fresh = true, true
				_ = syscall.Kill(p.pid, sig)
			}
		}
		if !fresh {
			return
		}
	}
}

// describe names up to four processes for a log line: "pid 12 (sh), …".
func describe(ps []proc) string {
	var parts []string
	for i, p := range ps {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("pid %d (%s)", p.pid, p.name))
	}
	return strings.Join(parts, ", ")
}

// reaped is one process of the tree that ended.
type reaped struct {
	pid    int
	status syscall.WaitStatus
}

// reap waits for every child we have, CMD and the orphans handed to us,
// and reports each as it ends. The channel closes when no child is left:
// the whole tree has ended. Nothing else in the watchdog may wait for a
// child (exec.Cmd.Wait would race with it), so CMD's status comes from
// here too.
func reap() <-chan reaped {
	out := make(chan reaped)
	go func() {
		defer close(out)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case err != nil: // ECHILD: nobody is left
				return
			}
			out <- reaped{pid: pid, status: ws}
		}
	}()
	return out
}

// shellStatus is a wait status as a shell reports it: the exit code, or
// 128 plus the signal that ended the process.
func shellStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
