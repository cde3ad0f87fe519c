package zktest

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// dial connects a plain go-zookeeper client and waits for its session.
func dial(t *testing.T, addr string, timeout time.Duration) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	conn, events, err := zk.Connect([]string{addr}, timeout, zk.WithLogger(zkLog{t}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	return conn, events
}

type zkLog struct{ t *testing.T }

func (l zkLog) Printf(string, ...any) {}

func waitState(t *testing.T, events <-chan zk.Event, want zk.State, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-events:
			if ev.State == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %v within %v", want, timeout)
		}
	}
}

func TestStandaloneServes(t *testing.T) {
	t.Parallel()
	c := Start(t, 1)
	if m := c.Mode(0); m != "standalone" {
		t.Fatalf("mode %q, want standalone", m)
	}
	conn, _ := dial(t, c.Server(0), 2*time.Second)
	if _, err := conn.Create("/x", []byte("y"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
}

func TestEnsembleSurvivesItsLeader(t *testing.T) {
	t.Parallel()
	c := Start(t, 3)
	leader := c.Leader()
	modes := map[string]int{}
	for i := range c.Servers() {
		modes[c.Mode(i)]++
	}
	if leader < 0 || modes["leader"] != 1 || modes["follower"] != 2 {
		t.Fatalf("modes %v, want one leader and two followers", modes)
	}
	c.Kill(leader)
	if c.Mode(leader) != "down" {
		t.Fatalf("killed server %d still answers", leader)
	}
	deadline := time.Now().Add(20 * time.Second)
	for c.Leader() < 0 || c.Leader() == leader {
		if time.Now().After(deadline) {
			t.Fatal("no new leader after the old one was killed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Start(leader)
	c.WaitServing(leader)
	if m := c.Mode(leader); m != "follower" {
		t.Fatalf("restarted server is %q, want follower", m)
	}
}

func TestProxyResetAndRestore(t *testing.T) {
	t.Parallel()
	c := Start(t, 1)
	p := NewProxy(t, c.Server(0))
	conn, events := dial(t, p.Addr(), 4*time.Second)
	id := conn.SessionID()
	p.Reset()
	waitState(t, events, zk.StateDisconnected, 5*time.Second)
	// A new connection is accepted and reset at once: it never carries data.
	if c2, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		_ = c2.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c2.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("a refused connection stayed open: %v", err)
		}
		c2.Close()
	}
	p.Restore()
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	if conn.SessionID() != id {
		t.Fatal("the session changed across a short reset")
	}
}

func TestProxyCutIsSilent(t *testing.T) {
	t.Parallel()
	c := Start(t, 1)
	p := NewProxy(t, c.Server(0))
	conn, events := dial(t, p.Addr(), time.Second)
	p.Cut()
	start := time.Now()
	waitState(t, events, zk.StateDisconnected, 5*time.Second)
	// The client notices only when its receive timeout passes: 2/3 of the
	// 1 s session, counted from the last packet it read, and it pings every
	// 1/3 s; so between 1/3 and 2/3 s after the cut. A reset would be
	// noticed in milliseconds.
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("disconnected after %v: the cut was not silent", d)
	}
	done := make(chan error, 1)
	go func() { _, _, err := conn.Exists("/"); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a request got through a cut proxy")
		}
	case <-time.After(1500 * time.Millisecond):
	}
	p.Heal()
}

func TestProxyResetAfterCreate(t *testing.T) {
	t.Parallel()
	c := Start(t, 1)
	p := NewProxy(t, c.Server(0))
	conn, _ := dial(t, p.Addr(), 4*time.Second)
	direct, _ := dial(t, c.Server(0), 4*time.Second)
	p.ResetAfterCreate("/trap")
	if _, err := conn.Create("/other", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("a create outside the prefix: %v", err)
	}
	select {
	case <-p.Fired():
		t.Fatal("the trap fired on a path outside its prefix")
	default:
	}
	if _, err := conn.Create("/trapped", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("trapped create = %v, want ErrConnectionClosed", err)
	}
	select {
	case <-p.Fired():
	case <-time.After(5 * time.Second):
		t.Fatal("the trap never fired")
	}
	if ok, _, err := direct.Exists("/trapped"); err != nil || !ok {
		t.Fatalf("the server did not apply the trapped create: exists = %v, %v", ok, err)
	}
	// Armed again, it springs again, with a Fired of its own (speaker
	// chaos arms it over and over).
	p.ResetAfterCreate("/again")
	select {
	case <-p.Fired():
		t.Fatal("the second trap's Fired was closed before it sprang")
	default:
	}
	again, _ := dial(t, p.Addr(), 4*time.Second)
	if _, err := again.Create("/again", nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("second trapped create = %v, want ErrConnectionClosed", err)
	}
	select {
	case <-p.Fired():
	case <-time.After(5 * time.Second):
		t.Fatal("the second trap never fired")
	}
}

func TestProcessHelpers(t *testing.T) {
	t.Parallel()
	requireZooKeeper(t)
	p := Run(t, "/bin/sh", "-c", "echo out; echo err >&2; kill -STOP $$; exit 3")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.WaitForStderr(ctx, "err"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	p.Cont()
	code, err := p.Wait(ctx)
	if err != nil || code != 3 || !strings.Contains(p.Stdout(), "out") {
		t.Fatalf("exit %d, %v, stdout %q", code, err, p.Stdout())
	}
	q := Run(t, "/bin/sleep", "30")
	q.Signal(syscall.SIGKILL)
	if code, err := q.Wait(ctx); err != nil || code != -1 {
		t.Fatalf("after SIGKILL: exit %d, %v; want -1", code, err)
	}
}
