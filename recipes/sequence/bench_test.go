package sequence_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// BenchmarkNext times the article's compare-and-set on a local standalone
// server, with a persistence leader raising the limit as in production:
// ns/op is the time per NextN call, over all workers, each on a session of
// its own. Beside it: IDs per second; conflicts (compare-and-sets lost to
// another worker) per call, the cost of contention that the article's "no
// system-level bottleneck" leaves out; and waits for the leader to raise
// the limit per call, 0 unless the persistence leader falls behind. Compare runs with benchstat;
// `seqid bench` gives the same figures as a table.
func BenchmarkNext(b *testing.B) {
	cluster := zktest.Start(b, 1)
	store, err := sequence.OpenFileStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	connect := func() *recoverable.RecoverableZookeeper { return zktest.Connect(b, cluster.Servers(), 10*time.Second) }
	opts := []sequence.Option{sequence.WithBlock(1 << 20), sequence.WithLogger(zktest.Logger(b))}
	ctx := context.Background()
	p, err := sequence.NewPersister(ctx, connect(), store, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	var made atomic.Int64 // a fresh sequence for every run, -count included
	for _, batch := range []int64{1, 10} {
		for _, workers := range []int{1, 4, 16} {
			name := fmt.Sprintf("batch=%d/workers=%d", batch, workers)
			b.Run(name, func(b *testing.B) {
				seqName := fmt.Sprintf("b%d-w%d-%d", batch, workers, made.Add(1))
				if err := sequence.Create(ctx, connect(), seqName, 1, opts...); err != nil {
					b.Fatal(err)
				}
				seqs := make([]*sequence.Sequence, workers)
				for i := range seqs {
					if seqs[i], err = sequence.Open(connect(), seqName, opts...); err != nil {
						b.Fatal(err)
					}
					if _, err := seqs[i].NextN(ctx, batch); err != nil { // warm: the first waits for the first raise
						b.Fatal(err)
					}
				}
				// Summed over the workers: conflicts, and waits for the
				// persistence leader to raise the limit (none, unless the
				// leader falls behind).
				sum := func() (conflicts, waits int64) {
					for _, s := range seqs {
						conflicts, waits = conflicts+s.Stats().Conflicts, waits+s.Stats().Waits
					}
					return conflicts, waits
				}
				warmConflicts, warmWaits := sum()
				var left atomic.Int64
				left.Store(int64(b.N))
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for _, s := range seqs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for left.Add(-1) >= 0 {
							if _, err := s.NextN(ctx, batch); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				b.ReportMetric(float64(b.N)*float64(batch)/elapsed.Seconds(), "ids/s")
				conflicts, waits := sum()
				b.ReportMetric(float64(conflicts-warmConflicts)/float64(b.N), "conflicts/op")
				b.ReportMetric(float64(waits-warmWaits)/float64(b.N), "waits/op")
			})
		}
	}
}
