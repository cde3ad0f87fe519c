package main_test

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// put, list and take: the priority item first, then the others in the
// order of their puts; take prints the value alone.
func TestPutListTake(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	s, p := servers[0], zktest.Path(t)
	ok(t, "put", "-s", s, p, "first")
	ok(t, "put", "-s", s, p, "second")
	if out := ok(t, "put", "-s", s, "--priority", "7", p, "urgent"); !strings.HasPrefix(out, "put "+p+"/item-992-") {
		t.Fatalf("put said %q", out)
	}
	list := ok(t, "list", "-s", s, p)
	if lines := strings.Split(strings.TrimSpace(list), "\n"); len(lines) != 3 || !strings.Contains(lines[0], `priority 7  "urgent"`) ||
		!strings.Contains(lines[2], `"second"`) {
		t.Fatalf("list:\n%s", list)
	}
	for _, want := range []string{"urgent", "first", "second"} {
		if out := ok(t, "take", "-s", s, p); out != want+"\n" {
			t.Fatalf("take printed %q, want %q", out, want)
		}
	}
}

// take waits while the queue is empty, and --follow takes until stopped.
// The follower starts once the one-shot take has its item: takers race
// for each item, and a follower that won all five would leave the
// one-shot take waiting, as it should.
func TestTakeWaitsAndFollowTakesEach(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	s, p := servers[0], zktest.Path(t)
	ok(t, "put", "-s", s, p, "warm-up") // makes the queue, so that take finds it
	ok(t, "take", "-s", s, p)
	one := zktest.Run(t, bin, "take", "-s", s, p)
	ok(t, "put", "-s", s, p, "0")
	if code := exitWithin(t, one, 20*time.Second); code != 0 {
		t.Fatalf("take: status %d", code)
	}
	follower := zktest.Run(t, bin, "take", "-s", s, "--follow", p)
	for i := 1; i < 5; i++ {
		ok(t, "put", "-s", s, p, fmt.Sprint(i))
	}
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(follower.Stdout(), "\n") < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	follower.Term()
	if code := exitWithin(t, follower, 10*time.Second); code != 0 {
		t.Fatalf("take --follow on SIGTERM: status %d\n%s", code, follower.Stderr())
	}
	if got, want := strings.Fields(one.Stdout()+follower.Stdout()), []string{"0", "1", "2", "3", "4"}; !slices.Equal(got, want) {
		t.Fatalf("took %q, want %q: each item once, in order", got, want)
	}
}

// A consumer is killed (SIGKILL) after printing an item and before its
// work is done. Under at-least-once the item comes back when its session
// expires, and the next consumer takes it; under at-most-once it was
// deleted at the take, and it is lost.
func TestAConsumerKilledMidTake(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	for _, tc := range []struct {
		delivery  string
		comesBack bool
	}{{"at-least-once", true}, {"at-most-once", false}} {
		t.Run(tc.delivery, func(t *testing.T) {
			t.Parallel()
			s, p := servers[0], zktest.Path(t)
			ok(t, "put", "-s", s, p, "job-1")
			killed := zktest.Run(t, bin, "take", "-s", s, "--session-timeout", "2s", "--follow", "--delivery", tc.delivery, "--work", "1h", p)
			waitOut(t, killed, "job-1\n", 20*time.Second)
			killed.Signal(syscall.SIGKILL)
			exitWithin(t, killed, 10*time.Second)

			next := zktest.Run(t, bin, "take", "-s", s, "--delivery", tc.delivery, p)
			expiry := 2*time.Second + zktest.TickTime + electiontest.Slack
			if tc.comesBack {
				if code := exitWithin(t, next, 2*expiry); code != 0 || next.Stdout() != "job-1\n" {
					t.Fatalf("next consumer: status %d, printed %q; want job-1 back", code, next.Stdout())
				}
				if out, _, _ := run(t, "list", "-s", s, p); out != "" {
					t.Fatalf("after the Ack the queue still lists:\n%s", out)
				}
				return
			}
			time.Sleep(2 * expiry) // the killed session has expired
			ok(t, "put", "-s", s, p, "job-2")
			if code := exitWithin(t, next, 20*time.Second); code != 0 || next.Stdout() != "job-2\n" {
				t.Fatalf("next consumer: status %d, printed %q; want job-2 (job-1 was lost with its consumer)", code, next.Stdout())
			}
		})
	}
}
