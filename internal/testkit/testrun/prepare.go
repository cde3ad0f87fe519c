package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// preparation is the -prepare command: started with the first packages,
// and waited for before the alone packages start. make test builds the
// soaks' broken builds so, at a low CPU priority, while the first
// packages' tests mostly wait: built when the soaks start, a dozen builds
// beside a dozen soaks took 40 s, and the broken builds' soaks waited.
type preparation struct {
	done   chan struct{}
	start  time.Time
	took   time.Duration
	err    error
	output bytes.Buffer
}

// prepare starts command with sh -c in dir; an empty command is done at
// once.
func prepare(dir, command string) *preparation {
	p := &preparation{done: make(chan struct{}), start: time.Now()}
	if command == "" {
		close(p.done)
		return p
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &p.output, &p.output
	if err := cmd.Start(); err != nil {
		p.err = err
		close(p.done)
		return p
	}
	go func() {
		p.err = cmd.Wait()
		p.took = time.Since(p.start)
		close(p.done)
	}()
	return p
}

// wait waits for the command to end and prints what it said, and how it
// ended, under mu. A failed preparation is reported and the run goes on:
// the tests build what they need themselves, only later.
func (p *preparation) wait(w io.Writer, mu *sync.Mutex) {
	<-p.done
	out := strings.TrimSpace(p.output.String())
	if out == "" && p.err == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if out != "" {
		fmt.Fprintln(w, out)
	}
	if p.err != nil {
		fmt.Fprintf(w, "testrun: -prepare failed (%v); the tests build what they need themselves\n", p.err)
	}
}
