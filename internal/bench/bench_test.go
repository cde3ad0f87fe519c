package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// sequential and singleFile start the two recipes' candidates, as the
// speaker command's table of elections does.
func sequential(w nodemonitor.WatchMode) Case {
	return Case{Election: "sequential", Watch: w.String(),
		New: func(rz *recoverable.RecoverableZookeeper, l election.Listener, path string, log *slog.Logger) (Monitor, error) {
			return nodemonitor.New(rz, l, nodemonitor.WithPath(path), nodemonitor.WithWatch(w), nodemonitor.WithLogger(log))
		}}
}

func singleFile() Case {
	return Case{Election: "single-file", Watch: "-",
		New: func(rz *recoverable.RecoverableZookeeper, l election.Listener, path string, log *slog.Logger) (Monitor, error) {
			return znodemonitor.New(rz, l, znodemonitor.WithPath(path), znodemonitor.WithLogger(log))
		}}
}

// BenchmarkFailover times the graceful failover path, from the leader's
// Close to the successor's StartSpeaking, with N candidates on a local
// standalone server. ns/op is the mean failover; compare runs with
// benchstat. The watch notifications and ZooKeeper requests per failover
// are reported beside it.
func BenchmarkFailover(b *testing.B) {
	cluster := zktest.Start(b, 1)
	for i, bc := range []Case{sequential(nodemonitor.WatchPredecessor), sequential(nodemonitor.WatchPredecessor),
		sequential(nodemonitor.WatchChildren), singleFile()} {
		bc.Candidates = []int{10, 100, 100, 100}[i]
		b.Run(fmt.Sprintf("%s/%d", bc, bc.Candidates), func(b *testing.B) {
			bc.Rounds = b.N
			run := New(cluster.Servers(), 20*time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
			row, err := run.Run(context.Background(), bc)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(row.FailoverMsMean*1e6, "ns/op")
			b.ReportMetric(row.FailoverMsP99, "p99-ms")
			b.ReportMetric(row.NotificationsPerFailover, "notifications/op")
			b.ReportMetric(row.RequestsPerFailover, "requests/op")
		})
	}
}
