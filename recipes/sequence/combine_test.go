package sequence_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/recipes/sequence"
)

// Two processes' worth of goroutines (two Sequences, each on its own
// session, 32 goroutines each) take IDs and small batches as fast as they
// can, while the persistence leader raises the limit 40 IDs at a time, so
// that a round often holds more IDs than fit and must split. Every ID is
// handed out once, with no hole, and the goroutines of one Sequence share
// their writes: far fewer compare-and-sets than calls.
func TestGoroutinesShareTheirWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "shared", 1, 40)
	f.persist(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got ranges
	var wg sync.WaitGroup
	var calls [2]int64
	var seqs [2]*sequence.Sequence
	stop := time.Now().Add(2 * time.Second)
	for p := range seqs {
		var err error
		if seqs[p], err = sequence.Open(f.connect(t, f.cluster.Servers()), "shared", f.opts...); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		for g := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := []int64{1, 2, 5}[g%3]
				for time.Now().Before(stop) {
					first, err := seqs[p].NextN(ctx, k)
					if err != nil {
						t.Errorf("process %d, goroutine %d: %v", p, g, err)
						return
					}
					got.add(first, k)
					mu.Lock()
					calls[p]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	ids := got.check(t, 1, 0)
	for p, s := range seqs {
		st := s.Stats()
		t.Logf("process %d: %d calls in %d writes, %d conflicts, %d IDs", p, calls[p], st.Writes, st.Conflicts, st.Handed)
		if st.Writes == 0 || st.Writes*4 > calls[p] {
			t.Errorf("process %d: %d calls took %d writes: its goroutines did not share them", p, calls[p], st.Writes)
		}
		if st.Skipped != 0 {
			t.Errorf("process %d skipped %d IDs in a run without faults", p, st.Skipped)
		}
	}
	if ids < 500 {
		t.Errorf("%d IDs handed out: the test exercised too little", ids)
	}
}

// A call whose context ends leaves the queue at once and takes nothing
// with it; when the call that leads the rounds leaves, the next waiting
// call leads on. Without a persistence leader the calls wait for room;
// once one runs, the call that stayed gets the first ID: the ones that
// left reserved none.
func TestACallThatLeavesTakesNoIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "leave", 7, 10)
	seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "leave", append(f.opts, sequence.WithWait(time.Minute))...)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		first int64
		err   error
	}
	start := func(ctx context.Context, k int64) <-chan result {
		out := make(chan result, 1)
		go func() {
			first, err := seq.NextN(ctx, k)
			out <- result{first, err}
		}()
		return out
	}
	leaderCtx, stopLeader := context.WithCancel(context.Background())
	leader := start(leaderCtx, 3)
	time.Sleep(100 * time.Millisecond) // the first call leads, and waits for room
	queuedCtx, stopQueued := context.WithCancel(context.Background())
	queued := start(queuedCtx, 2)
	stays := start(context.Background(), 1)
	time.Sleep(100 * time.Millisecond)
	stopQueued()
	stopLeader()
	for name, ch := range map[string]<-chan result{"the queued call": queued, "the leading call": leader} {
		select {
		case r := <-ch:
			if !errors.Is(r.err, context.Canceled) {
				t.Errorf("%s, cancelled: %d, %v; want context.Canceled", name, r.first, r.err)
			}
		case <-time.After(time.Second + electiontest.Slack):
			t.Fatalf("%s did not return within a second of its cancel", name)
		}
	}
	f.persist(t)
	select {
	case r := <-stays:
		if r.err != nil || r.first != 7 {
			t.Fatalf("the call that stayed: %d, %v; want 7, the first ID", r.first, r.err)
		}
	case <-time.After(10*time.Second + electiontest.Slack):
		t.Fatal("the call that stayed got no ID after the persister started: nobody led the rounds")
	}
	if got, err := seq.Next(context.Background()); err != nil || got != 8 {
		t.Errorf("the next call: %d, %v; want 8", got, err)
	}
	if st := seq.Stats(); st.Skipped != 0 || st.Handed != 2 {
		t.Errorf("stats %+v: want 2 IDs handed out and none skipped", st)
	}
}
