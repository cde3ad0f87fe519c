package sequence_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// BenchmarkNext times the article's compare-and-set on a local 3-server
// ensemble, as `seqid bench` does, with a persistence leader raising the
// limit as in production. Each case is a batch size and either separate
// workers (each a session and a Sequence of its own, one goroutine each)
// or goroutines sharing one Sequence, whose calls it combines into one
// write per round. ns/op is the time per NextN call over all callers;
// beside it: IDs per second, conflicts (compare-and-sets lost to another
// worker) per ID, and waits for the leader to raise the limit per call, 0
// unless it falls behind. Compare runs with benchstat; `seqid bench` gives
// the same figures as a table.
func BenchmarkNext(b *testing.B) {
	cluster := zktest.Start(b, 3)
	store, err := sequence.OpenFileStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	connect := func() *recoverable.RecoverableZookeeper { return zktest.Connect(b, cluster.Servers(), 10*time.Second) }
	opts := []sequence.Option{sequence.WithBlock(1 << 20)}
	ctx := context.Background()
	p, err := sequence.NewPersister(ctx, connect(), store, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	var made atomic.Int64 // a fresh sequence for every run, -count included
	shapes := []struct {
		name                string
		workers, goroutines int
	}{{"workers=1", 1, 1}, {"workers=4", 4, 1}, {"workers=16", 16, 1}, {"goroutines=16", 1, 16}, {"goroutines=64", 1, 64}}
	for _, batch := range []int64{1, 10} {
		for _, sh := range shapes {
			b.Run(fmt.Sprintf("batch=%d/%s", batch, sh.name), func(b *testing.B) {
				seqName := fmt.Sprintf("b%d-%s-%d", batch, strings.ReplaceAll(sh.name, "=", ""), made.Add(1))
				if err := sequence.Create(ctx, connect(), seqName, 1, opts...); err != nil {
					b.Fatal(err)
				}
				seqs := make([]*sequence.Sequence, sh.workers)
				for i := range seqs {
					if seqs[i], err = sequence.Open(connect(), seqName, opts...); err != nil {
						b.Fatal(err)
					}
					if _, err := seqs[i].NextN(ctx, batch); err != nil { // warm: the first waits for the first raise
						b.Fatal(err)
					}
				}
				benchNext(b, seqs, sh.goroutines, batch)
			})
		}
	}
}

// benchNext makes b.N calls of NextN(batch), from goroutines on each of
// seqs, and reports the rates.
func benchNext(b *testing.B, seqs []*sequence.Sequence, goroutines int, batch int64) {
	// Summed over the workers: IDs, conflicts, and waits for the
	// persistence leader to raise the limit.
	sum := func() (st sequence.Stats) {
		for _, s := range seqs {
			st.Handed, st.Conflicts, st.Waits = st.Handed+s.Stats().Handed, st.Conflicts+s.Stats().Conflicts, st.Waits+s.Stats().Waits
		}
		return st
	}
	warm := sum()
	var left atomic.Int64
	left.Store(int64(b.N))
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range len(seqs) * goroutines {
		s := seqs[i%len(seqs)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if _, err := s.NextN(context.Background(), batch); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	end := sum()
	ids := end.Handed - warm.Handed
	b.ReportMetric(float64(ids)/elapsed.Seconds(), "ids/s")
	b.ReportMetric(float64(end.Conflicts-warm.Conflicts)/float64(max(ids, 1)), "conflicts/id")
	b.ReportMetric(float64(end.Waits-warm.Waits)/float64(b.N), "waits/op")
}
