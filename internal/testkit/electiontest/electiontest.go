// Package electiontest runs election candidates in process against real
// ZooKeeper servers, for the tests of nodemonitor and znodemonitor.
package electiontest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// Monitor is either recipe's Monitor (nodemonitor or znodemonitor).
type Monitor = election.Monitor

// NewMonitor starts a monitor of one recipe for listener on the session of
// rz, logging to the session's logger: nodemonitor.New or znodemonitor.New
// with the test's options.
type NewMonitor func(rz *recoverable.RecoverableZookeeper, listener election.Listener) (Monitor, error)

// Candidate is one in-process speaker: its session, monitor and listener.
type Candidate struct {
	Name     string
	ZK       *recoverable.RecoverableZookeeper
	Monitor  Monitor
	Listener *zktest.Listener
}

// Leave closes the candidate's monitor and session, as SIGTERM does.
func (c *Candidate) Leave() {
	c.Monitor.Close()
	c.ZK.Close()
}

// Connect opens a session on servers and waits for it (see zktest.Connect).
var Connect = zktest.Connect

// named is the option that makes a session, and so the monitor on it, log
// to the test's log with the attribute key=value.
func named(t testing.TB, key string, value any) recoverable.Option {
	return recoverable.WithLogger(zktest.Logger(t).With(key, value))
}

// Spawn starts n candidates one after another, each on its own session,
// and waits until each has joined, so that they queue in order.
func Spawn(t testing.TB, servers []string, n int, newMonitor NewMonitor) []*Candidate {
	t.Helper()
	var out []*Candidate
	for i := 0; i < n; i++ {
		c := &Candidate{Name: fmt.Sprintf("c%d", i), Listener: zktest.NewListener(fmt.Sprintf("c%d", i))}
		c.ZK = Connect(t, servers, 2*time.Second, named(t, "candidate", c.Name))
		m, err := newMonitor(c.ZK, c.Listener)
		if err != nil {
			t.Fatal(err)
		}
		c.Monitor = m
		t.Cleanup(m.Close)
		WaitStatus(t, m, 10*time.Second, c.Name+" joins", func(s election.Status) bool { return s.Node != "" })
		out = append(out, c)
	}
	return out
}

// WaitStatus follows m through Observe until cond holds for its status, and
// fails the test with what after timeout.
func WaitStatus(t testing.TB, m Monitor, timeout time.Duration, what string, cond func(election.Status) bool) election.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last election.Status
	for s := range m.Observe(ctx) {
		if last = s; cond(s) {
			return s
		}
	}
	t.Fatalf("timed out after %v waiting until %s (last status: %v, %q)", timeout, what, last.State, last.Node)
	return last
}

// Eventually polls cond every 5 ms until it holds, and fails the test with
// what after timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Speakers returns the indices of the candidates whose listener speaks.
func Speakers(cands []*Candidate) []int {
	var out []int
	for i, c := range cands {
		if c.Listener.Speaking() {
			out = append(out, i)
		}
	}
	return out
}

// OneLeader waits until exactly one candidate speaks and is active, then
// watches for hold that nobody else joins it, and returns its index.
func OneLeader(t testing.TB, cands []*Candidate, hold time.Duration) int {
	t.Helper()
	leader := -1
	Eventually(t, 15*time.Second, "exactly one candidate speaks", func() bool {
		s := Speakers(cands)
		if len(s) > 1 {
			t.Fatalf("candidates %v speak at once", s)
		}
		if len(s) == 1 && cands[s[0]].Monitor.State() == election.StateActive {
			leader = s[0]
			return true
		}
		return false
	})
	for end := time.Now().Add(hold); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if s := Speakers(cands); len(s) != 1 || s[0] != leader {
			t.Fatalf("leader %d, but now speaking: %v", leader, s)
		}
	}
	return leader
}

// Notifications sums the watch notifications of the candidates.
func Notifications(cands []*Candidate) int64 {
	var n int64
	for _, c := range cands {
		n += c.Monitor.Notifications()
	}
	return n
}

// Reps is how many times each fault test repeats its scenario: once in
// make test, which must stay within its time on two cores; as often as
// ZKSPEAKER_FAULT_REPS says, so that a fault hit at a lucky moment once is
// hit again (ZKSPEAKER_FAULT_REPS=5 make test, before a change to the
// engine lands).
func Reps() int {
	if n, err := strconv.Atoi(os.Getenv("ZKSPEAKER_FAULT_REPS")); err == nil && n > 1 {
		return n
	}
	return 1
}

// Slack is what a busy 2-core machine adds on top of a protocol's bound:
// under `make test` a ZooKeeper round trip has been seen to take 230 ms, and
// a speaker whose first proof arrives that late rightly asks again. A defect
// (a missed notification, a watch never set) costs a whole session or more,
// so this allowance does not hide one. The chaos soak uses the same figure.
const Slack = 500 * time.Millisecond

// TakeoverBound is how long after a leader falls silent (frozen, cut off)
// its successor's first line may come: the session timeout, the tick at
// which the server expires sessions, one interval for the successor's
// listing, confirm and write, and Slack.
func TakeoverBound(session, interval time.Duration) time.Duration {
	return session + zktest.TickTime + interval + Slack
}
