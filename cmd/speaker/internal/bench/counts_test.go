package bench

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recoverable"
)

// counts are a row's counts per failover: the path's requests, its writes
// and the successor's round trips; everyone's notifications, requests and
// writes.
type counts struct{ path, pathWrites, trips, notified, requests, writes float64 }

func countsOf(r Row) counts {
	return counts{r.PathRequests, r.PathWrites, r.RoundTrips, r.NotificationsPerFailover, r.RequestsPerFailover, r.WritesPerFailover}
}

// The locks' counts, whatever the number of candidates: the holder's
// delete, and the successor's listing in one round trip. Our lock's holder
// then watches its own znode (one more request, and its own notification
// at its delete); zk.Lock's watches nothing.
var lockCounts = map[string]counts{
	"lock":    {2, 1, 1, 2, 3, 1},
	"zk.Lock": {2, 1, 1, 1, 2, 1},
}

// runLocks runs the lock rows through servers, n contenders each, and
// checks their counts.
func runLocks(t *testing.T, servers []string, cases []Case, n, rounds int) {
	t.Helper()
	for i := range cases {
		cases[i].Candidates, cases[i].Rounds = n, rounds
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := New(servers, 20*time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rows, err := b.Run(ctx, cases, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if got, want := countsOf(r), lockCounts[r.Election]; r.Rounds != rounds || got != want {
			t.Errorf("%s, %d rounds: path requests, path writes, round trips, notifications, requests, writes per failover = %v, want %v",
				r.Election, r.Rounds, got, want)
		}
	}
}

// Our lock's engine sets the holder's watch on its own znode as soon as
// Lock hands the lock over, and a busy machine may run Lock's caller only
// after that watch has gone out. The path ends at the decision all the
// same: the watch is not on it.
func TestLockPathEndsAtTheDecision(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	bc := RecipeLock()
	ours := bc.locker
	bc.locker = func(rz *recoverable.RecoverableZookeeper, path, name string) locker {
		return lateCaller{ours(rz, path, name), rz, cluster.Server(0)}
	}
	runLocks(t, cluster.Servers(), []Case{bc}, 3, 3)
}

// lateCaller is a lock whose caller runs again only once the server holds
// a watch of the holder's session: for our lock, the watch on its own
// znode, its predecessor's having fired.
type lateCaller struct {
	locker
	rz   *recoverable.RecoverableZookeeper
	addr string
}

func (l lateCaller) lock(ctx context.Context) (int64, error) {
	epoch, err := l.locker.lock(ctx)
	if err != nil {
		return epoch, err
	}
	for {
		watches, err := fourletter.Watches(ctx, l.addr)
		if err != nil {
			return 0, err
		}
		if len(watches[l.rz.SessionID()]) > 0 {
			return epoch, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
}

// Through a network that holds every answer for 100 ms (twice the quiet
// spell the bench once mistook for the end of a failover), a contender's
// requests leave one round trip apart, and the bench's counts stay those of
// a fast one: it knows when each contender has done what a failover, or
// its own joining, made it do, whatever the time between its requests.
func TestCountsThroughASlowNetwork(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	proxy := zktest.NewProxy(t, cluster.Server(0))
	proxy.SetReplyLatency(100 * time.Millisecond)
	runLocks(t, []string{proxy.Addr()}, []Case{RecipeLock(), LockBaseline()}, 3, 3)
}
