package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"zkspeaker/internal/zktest"
	"zkspeaker/nodemonitor"
)

// BenchmarkFailover times the graceful failover path, from the leader's
// Close to the successor's StartSpeaking, with N candidates on a local
// standalone server. ns/op is the mean failover; compare runs with
// benchstat. The watch notifications and ZooKeeper requests per failover
// are reported beside it.
func BenchmarkFailover(b *testing.B) {
	cluster := zktest.Start(b, 1)
	for _, bc := range []benchCase{
		{election: "sequential", watch: nodemonitor.WatchPredecessor, candidates: 10},
		{election: "sequential", watch: nodemonitor.WatchPredecessor, candidates: 100},
		{election: "sequential", watch: nodemonitor.WatchChildren, candidates: 100},
		{election: "single-file", candidates: 100},
	} {
		b.Run(fmt.Sprintf("%s/%d", bc, bc.candidates), func(b *testing.B) {
			bc.rounds = b.N
			run := &bench{servers: cluster.Servers(), session: 20 * time.Second, probes: map[string]int64{}, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
			row, err := run.run(context.Background(), bc)
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
