package group_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// server is the package's shared server (zktest.Shared): under -short, a
// test that needs it skips there.
func server(t *testing.T) string { return zktest.Shared(t).Server(0) }

// connect opens a session on addr, closed when the test ends.
func connect(t *testing.T, addr string, timeout time.Duration) *recoverable.RecoverableZookeeper {
	t.Helper()
	return zktest.Connect(t, []string{addr}, timeout)
}

// groupName is a group of the test's own on the shared server.
func groupName(t *testing.T) string {
	return "/t-" + strings.NewReplacer("/", "-", " ", "_").Replace(t.Name())
}

// newGroup returns the test's group on rz, not yet created.
func newGroup(t *testing.T, rz *recoverable.RecoverableZookeeper) *group.Group {
	t.Helper()
	g, err := group.New(rz, groupName(t))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// created is newGroup, created.
func created(t *testing.T, rz *recoverable.RecoverableZookeeper) *group.Group {
	t.Helper()
	g := newGroup(t, rz)
	if err := g.Create(bounded(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Whatever the test left, so that -count=2 starts afresh.
	t.Cleanup(func() { removeAll(rz, g.Path()) })
	return g
}

// removeAll deletes path and everything under it, as far as it can.
func removeAll(rz *recoverable.RecoverableZookeeper, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	children, _ := rz.Children(ctx, path)
	for _, c := range children {
		removeAll(rz, path+"/"+c)
	}
	_ = rz.Delete(ctx, path, -1)
}

// join joins g as name; the member leaves when the test ends, before its
// session is closed.
func join(t *testing.T, g *group.Group, name string) *group.Member {
	t.Helper()
	m, err := g.Join(bounded(t, 20*time.Second), name)
	if err != nil {
		t.Fatalf("join %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = m.Leave(ctx)
	})
	return m
}

// bounded is a context that ends after d or with the test.
func bounded(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// waitStatus waits for a status of m that satisfies ok.
func waitStatus(t *testing.T, m *group.Member, d time.Duration, what string, ok func(group.Status) bool) group.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for st := range m.Observe(ctx) {
		if ok(st) {
			return st
		}
	}
	t.Fatalf("%s never happened within %v; last status %+v", what, d, m.Status())
	return group.Status{}
}

// stat returns path's Stat, or nil when there is no such znode.
func stat(t *testing.T, rz *recoverable.RecoverableZookeeper, path string) *zk.Stat {
	t.Helper()
	ok, st, err := rz.Exists(bounded(t, 10*time.Second), path)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return nil
	}
	return st
}

// members lists g through rz, failing the test on error.
func members(t *testing.T, g *group.Group) []string {
	t.Helper()
	m, err := g.List(bounded(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExpired returns a function that waits until the server has expired
// rz's session as it is now: it makes an ephemeral znode on that session,
// and the server deletes it with the session.
func waitExpired(t *testing.T, admin, rz *recoverable.RecoverableZookeeper) func() {
	t.Helper()
	marker := "/t-" + strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()) + "-session"
	if _, err := rz.CreateEphemeral(bounded(t, 5*time.Second), marker, nil, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		eventually(t, 3*session, "the server expires the session", func() bool { return stat(t, admin, marker) == nil })
	}
}

// proxied sets up a fault test: an admin session straight to the server,
// the test's group made through it, and a session with the given timeout
// whose every byte goes through a fault proxy.
func proxied(t *testing.T, timeout time.Duration) (admin *recoverable.RecoverableZookeeper, g *group.Group, proxy *zktest.Proxy, rz *recoverable.RecoverableZookeeper) {
	t.Helper()
	admin = connect(t, server(t), session)
	g = created(t, admin)
	proxy = zktest.NewProxy(t, server(t))
	return admin, g, proxy, connect(t, proxy.Addr(), timeout)
}
