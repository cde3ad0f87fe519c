package zktest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"zkspeaker/internal/ensemble"
	"zkspeaker/internal/fourletter"
)

// TickTime is the servers' tick: sessions from 2 ticks (400 ms) are
// allowed, so tests can expire sessions quickly.
const TickTime = 200 * time.Millisecond

// RaisedWarning is what every command logs when asked for a session
// timeout of 300ms (BelowMinSession), which the test servers raise to two
// ticks.
const RaisedWarning = `level=WARN msg="the server raised our session timeout to the shortest it allows" asked=300ms granted=400ms`

// BelowMinSession is a session timeout the test servers raise. Not much
// below their minimum: go-zookeeper gives a server ten times two thirds of
// the asked timeout to answer a connect, and at 100 ms (667 ms) a loaded
// machine's server missed it again and again, and no session opened.
const BelowMinSession = "300ms"

// MaxSessionTimeout is the longest session the servers grant. It is above
// the default 20 ticks so that ensemble tests can ask for sessions that
// outlast a JVM restart on a busy machine.
const MaxSessionTimeout = 20 * time.Second

// Cluster is a real standalone server or ensemble, stopped by t.Cleanup.
type Cluster struct {
	t       TB
	inst    install
	servers []*server
}

// Start runs n real ZooKeeper servers on free loopback ports: a standalone
// server when n is 1, an ensemble otherwise. It returns once every server
// serves, and fails the test (never skips it) when ZooKeeper is missing.
func Start(t TB, n int) *Cluster {
	t.Helper()
	inst := requireZooKeeper(t)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a free port can be taken in between
		c := &Cluster{t: t, inst: inst}
		if err := c.start(n); err != nil {
			lastErr = err
			c.killAll()
			continue
		}
		t.Cleanup(func() {
			if t.Failed() {
				c.dumpLogs()
			}
			c.killAll()
		})
		return c
	}
	t.Fatalf("zktest: could not start %d ZooKeeper servers: %v", n, lastErr)
	return nil
}

func (c *Cluster) start(n int) error {
	port, err := ensemble.FreeBase(n)
	if err != nil {
		return err
	}
	var peers strings.Builder
	if n > 1 {
		// With each client port, as ensemble.sh writes them: /zookeeper/config
		// then lists every server a client may ask.
		for i := 0; i < n; i++ {
			fmt.Fprintf(&peers, "server.%d=127.0.0.1:%d:%d;127.0.0.1:%d\n", i+1, port+ensemble.PeerOffset+i, port+ensemble.ElectionOffset+i, port+i)
		}
	}
	base, err := os.MkdirTemp("", "zktest-")
	if err != nil {
		return err
	}
	c.t.Cleanup(func() { os.RemoveAll(base) })
	for i := 0; i < n; i++ {
		dir := filepath.Join(base, fmt.Sprintf("zk%d", i+1))
		s := &server{id: i + 1, dir: dir, port: port + i, inst: c.inst}
		if err := s.configure(peers.String()); err != nil {
			return err
		}
		c.servers = append(c.servers, s)
	}
	for _, s := range c.servers {
		if err := s.start(); err != nil {
			return err
		}
	}
	for _, s := range c.servers {
		if err := s.waitServing(30 * time.Second); err != nil {
			return err
		}
	}
	return nil
}

// Servers returns the client addresses, "127.0.0.1:port" each.
func (c *Cluster) Servers() []string {
	out := make([]string, len(c.servers))
	for i := range c.servers {
		out[i] = c.Server(i)
	}
	return out
}

// Server returns server i's client address (i counts from 0).
func (c *Cluster) Server(i int) string { return fmt.Sprintf("127.0.0.1:%d", c.servers[i].port) }

// ConnString returns the servers as a connection string.
func (c *Cluster) ConnString() string { return strings.Join(c.Servers(), ",") }

// Kill crashes server i with SIGKILL and waits until it is gone.
func (c *Cluster) Kill(i int) { c.servers[i].stop(true) }

// Stop shuts server i down with SIGTERM and waits until it is gone.
func (c *Cluster) Stop(i int) { c.servers[i].stop(false) }

// Wipe deletes stopped server i's data (its snapshots and transaction
// logs; its id stays), as a lost disk would: started again, it has no
// znodes, and with every server wiped the ensemble starts afresh.
func (c *Cluster) Wipe(i int) {
	c.t.Helper()
	s := c.servers[i]
	s.mu.Lock()
	running := s.cmd != nil
	s.mu.Unlock()
	if running {
		c.t.Fatalf("zktest: wipe server %d: it is running; Stop or Kill it first", i)
	}
	if err := ensemble.WipeData(filepath.Join(s.dir, "data")); err != nil {
		c.t.Fatalf("zktest: wipe server %d: %v", i, err)
	}
}

// Freeze stops server i with SIGSTOP, as a long GC pause or a hung machine
// would: its connections stay open but it answers nothing until Thaw. The
// test's cleanup kills it, frozen or not.
func (c *Cluster) Freeze(i int) { c.servers[i].signal(syscall.SIGSTOP) }

// Thaw resumes server i after Freeze.
func (c *Cluster) Thaw(i int) { c.servers[i].signal(syscall.SIGCONT) }

// Start restarts server i with its config and data, and waits until it
// answers. A lone member of an ensemble without quorum answers but does not
// serve; use WaitServing for that.
func (c *Cluster) Start(i int) {
	c.t.Helper()
	if err := c.servers[i].start(); err != nil {
		c.t.Errorf("zktest: restart server %d: %v", i, err)
		return
	}
	if err := c.servers[i].waitAnswering(30 * time.Second); err != nil {
		c.t.Errorf("zktest: server %d: %v", i, err)
	}
}

// StartMany restarts the servers ids at once, then waits until each
// answers: their JVMs start side by side, where one Start after another
// would add up their start times, which a busy machine makes long.
func (c *Cluster) StartMany(ids ...int) {
	c.t.Helper()
	for _, i := range ids {
		if err := c.servers[i].start(); err != nil {
			c.t.Errorf("zktest: restart server %d: %v", i, err)
		}
	}
	for _, i := range ids {
		if err := c.servers[i].waitAnswering(30 * time.Second); err != nil {
			c.t.Errorf("zktest: server %d: %v", i, err)
		}
	}
}

// WaitServing waits until server i serves clients again.
func (c *Cluster) WaitServing(i int) {
	c.t.Helper()
	if err := c.servers[i].waitServing(30 * time.Second); err != nil {
		c.t.Errorf("zktest: %v", err)
	}
}

// Mode returns "leader", "follower", "standalone", or "down", from the
// server's answer to the four-letter word srvr.
func (c *Cluster) Mode(i int) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return fourletter.Srvr(ctx, c.servers[i].addr()).Mode
}

// Leader returns the index of the ensemble's leader, or -1.
func (c *Cluster) Leader() int {
	for i := range c.servers {
		if c.Mode(i) == "leader" {
			return i
		}
	}
	return -1
}

func (c *Cluster) killAll() {
	for _, s := range c.servers {
		s.stop(true)
	}
}

func (c *Cluster) dumpLogs() {
	for _, s := range c.servers {
		c.t.Logf("zktest: last lines of server %d's log:\n%s", s.id, s.logTail(200))
	}
}
