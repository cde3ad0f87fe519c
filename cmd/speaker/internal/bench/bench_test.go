package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// sequential starts the sequential recipe's candidates, as the speaker
// command's table of elections does.
func sequential(w nodemonitor.WatchMode) Case {
	return Case{Election: "sequential", Watch: w.String(),
		New: func(rz *recoverable.RecoverableZookeeper, l election.Listener, path string) (Monitor, error) {
			return nodemonitor.New(rz, l, nodemonitor.WithPath(path), nodemonitor.WithWatch(w))
		}}
}

// BenchmarkFailover times the graceful failover path as `speaker bench`
// does, from the leader's exit to its successor's first fsynced, confirmed
// line, with N candidates on a local standalone server, for the sequential
// recipe, for our lock, and for go-zookeeper's zk.Lock, the baseline. ns/op is the mean
// failover; compare runs with benchstat. The critical path's requests and
// round trips, and everyone's notifications, are reported beside it.
func BenchmarkFailover(b *testing.B) {
	cluster := zktest.Start(b, 1)
	for _, n := range []int{3, 100} {
		for _, bc := range []Case{sequential(nodemonitor.WatchPredecessor), RecipeLock(), LockBaseline()} {
			bc.Candidates = n
			b.Run(fmt.Sprintf("%s/%d", bc, n), func(b *testing.B) {
				bc.Rounds = b.N
				run := New(cluster.Servers(), 20*time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
				rows, err := run.Run(context.Background(), []Case{bc}, 3)
				if err != nil {
					b.Fatal(err)
				}
				row := rows[0]
				b.ReportMetric(row.FailoverMsMean*1e6, "ns/op")
				b.ReportMetric(row.FailoverMsP50, "p50-ms")
				b.ReportMetric(row.PathRequests, "path-requests/op")
				b.ReportMetric(row.RoundTrips, "round-trips/op")
				b.ReportMetric(row.NotificationsPerFailover, "notifications/op")
			})
		}
	}
}
