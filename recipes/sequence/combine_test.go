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

// Each call waits for room as long as the Sequence's wait, counted from
// its own arrival: a call that left while the rounds waited for room
// leaves no deadline behind for the next one, which waits its whole wait
// before ErrNoRoom.
func TestEveryCallWaitsItsOwnWaitForRoom(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "own-wait", 1, 10) // no persister: the limit stays at the start
	wait := time.Second
	seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "own-wait", append(f.opts, sequence.WithWait(wait))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := seq.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call that left while waiting for room: %v, want its context's error", err)
	}
	time.Sleep(wait) // past the wait of the call that left
	start := time.Now()
	_, err = seq.Next(context.Background())
	if took := time.Since(start); !errors.Is(err, sequence.ErrNoRoom) || took < wait-100*time.Millisecond {
		t.Fatalf("the next call: %v after %v; want ErrNoRoom after its own wait of %v", err, took.Round(time.Millisecond), wait)
	}
}

// A call that waits for room too long fails alone: the calls queued behind
// it, which came later, go on waiting their own wait, and get their IDs
// once they fit. The persistence leader keeps 10 to 20 IDs of room, so a
// call for 100 never fits, while a call for one does.
func TestOnlyTheCallThatWaitedTooLongGetsErrNoRoom(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "too-long", 1, 10)
	f.persist(t)
	seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "too-long", append(f.opts, sequence.WithWait(time.Second))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := seq.Next(context.Background()); err != nil { // the leader has raised the limit
		t.Fatal(err)
	}
	big := make(chan error, 1)
	go func() {
		_, err := seq.NextN(context.Background(), 100)
		big <- err
	}()
	time.Sleep(500 * time.Millisecond)
	id, err := seq.Next(context.Background())
	if err != nil {
		t.Fatalf("a call for one ID behind a call for 100 that never fits: %v; want its ID", err)
	}
	if err := <-big; !errors.Is(err, sequence.ErrNoRoom) {
		t.Errorf("the call for 100 IDs: %v, want ErrNoRoom", err)
	}
	if id != 2 {
		t.Errorf("the call for one ID got %d, want 2: nothing was taken in between", id)
	}
}

// Workers that take IDs at a steady pace, more than the sequence can
// write, each on its own session: a worker that lost a compare-and-set
// and backs off must still get its IDs soon, although the others, which
// did not lose, never wait and keep the sequence busy. No call waits more
// than a few seconds: a backoff that waited for a calm moment without a
// bound starved such a worker for the whole of its 20 s deadline.
func TestABackedOffWorkerIsNotStarved(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "paced", 1, 1000)
	f.persist(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var worst time.Duration
	stop := time.Now().Add(6 * time.Second)
	for w := range 8 {
		seq, err := sequence.Open(f.connect(t, f.cluster.Servers()), "paced", f.opts...)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := int64(1 + w%3*4)
			for time.Now().Before(stop) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				began := time.Now()
				_, err := seq.NextN(ctx, k)
				took := time.Since(began)
				cancel()
				if err != nil {
					t.Errorf("worker %d, after %v: %v", w, took.Round(time.Millisecond), err)
					return
				}
				mu.Lock()
				worst = max(worst, took)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	t.Logf("the longest call took %v", worst.Round(time.Millisecond))
	// A second of waiting for a calm moment, then a write after each
	// backoff (200 ms at most): a few of them win.
	if bound := 4*time.Second + electiontest.Slack; worst > bound {
		t.Errorf("a call took %v: a worker that backed off was starved (bound %v)", worst.Round(time.Millisecond), bound)
	}
}
