package main_test

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/lock"
)

// `speaker status --path P` on a lock's path lists readers with the
// writers, each with its mode and whom it waits for, and says who holds and
// who was asked to let go; on a semaphore's path, the leases in use of N,
// the leases and the gate.
func TestStatusListsReadersWritersAndLeases(t *testing.T) {
	zktest.SkipShort(t)
	t.Parallel()
	cluster := zktest.Shared(t)
	servers := strings.Join(cluster.Servers(), ",")
	at := zktest.Path(t)
	c := contenders{t: t, servers: cluster.Servers()}
	c.hold(at, "r1", lock.Shared())
	c.hold(at, "r2", lock.Shared())
	c.wait(at, "w")
	c.wait(at, "r3", lock.Shared())
	var got string
	electiontest.Eventually(t, 10*time.Second, "status lists the four, r3 waiting for w", func() bool {
		got = status(t, "--servers", servers, "--path", at)
		return lockRows(got) == "r1 read holder | r2 read holder | w write waits for r2 | r3 read waits for w"
	})
	if !strings.Contains(got, "  lock: held by r1, r2: 2 readers, sharing\n") {
		t.Errorf("status does not say who holds:\n%s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := lock.Revoke(ctx, zktest.Connect(t, cluster.Servers(), 5*time.Second), at, lock.RequestedBy("w")); err != nil {
		t.Fatal(err)
	}
	got = status(t, "--servers", servers, "--path", at)
	if !strings.Contains(got, "  revoke: r1 was asked by w to let go") || !strings.Contains(got, "  revoke: r2 was asked by w to let go") || strings.Contains(got, "revoke: w ") {
		t.Errorf("status does not say that the holders, and they alone, were asked to let go:\n%s", got)
	}

	sem := zktest.Path(t) + "-sem"
	c.hold(sem, "a", lock.Leases(2))
	c.hold(sem, "b", lock.Leases(2))
	c.wait(sem, "c", lock.Leases(2))
	electiontest.Eventually(t, 10*time.Second, "status lists the leases and c holding the gate", func() bool {
		got = status(t, "--servers", servers, "--path", sem)
		return lockRows(got) == "a lease holder | b lease holder | c lease holds the gate"
	})
	if !strings.Contains(got, "  semaphore: 2 of 2 leases in use") || !strings.Contains(got, "gate "+sem+"/gate: c holds it") {
		t.Errorf("status does not say the leases in use and who holds the gate:\n%s", got)
	}
}

var lockRow = regexp.MustCompile(`^  \d{10}\s+(\S+)\s+(read|write|lease)\s+0x[0-9a-f]+\s+(-|\d{10} \((\S+)\))\s+.+?\s+(holder|waiting|holds the gate)$`)

// lockRows is each row of a lock's tables as "name mode role", or "name
// mode waits for name".
func lockRows(out string) string {
	var rs []string
	for _, line := range strings.Split(out, "\n") {
		m := lockRow.FindStringSubmatch(line)
		switch {
		case m == nil:
		case m[5] == "waiting":
			rs = append(rs, m[1]+" "+m[2]+" waits for "+m[4])
		default:
			rs = append(rs, m[1]+" "+m[2]+" "+m[5])
		}
	}
	return strings.Join(rs, " | ")
}

// contenders are in-process Locks, each on a session of its own.
type contenders struct {
	t       *testing.T
	servers []string
}

// hold takes the lock at path as name, and holds it until the test ends.
func (c contenders) hold(path, name string, opts ...lock.Option) {
	c.t.Helper()
	l := lock.New(zktest.Connect(c.t, c.servers, 5*time.Second), path, name, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Lock(ctx); err != nil {
		c.t.Fatalf("%s: Lock = %v", name, err)
	}
	c.t.Cleanup(func() { _ = l.Unlock(context.Background()) })
}

// wait starts a contender for the lock at path that waits in line until
// the test ends, and returns once its znode stands there.
func (c contenders) wait(path, name string, opts ...lock.Option) {
	c.t.Helper()
	rz := zktest.Connect(c.t, c.servers, 5*time.Second)
	l := lock.New(rz, path, name, opts...)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = l.Lock(ctx)
	}()
	c.t.Cleanup(func() {
		cancel()
		wg.Wait()
		_ = l.Unlock(context.Background())
	})
	electiontest.Eventually(c.t, 10*time.Second, name+" stands in line", func() bool {
		v, _, err := lock.Inspect(ctx, rz, path)
		if err != nil {
			return false
		}
		for _, x := range append(v.Line, v.Gate...) {
			if x.Data == name {
				return true
			}
		}
		return false
	})
}
