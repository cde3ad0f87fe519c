// Package bench measures what a failover costs: how long the successor
// takes to be told to speak after the leader leaves gracefully, and how
// many watch notifications and server requests it takes, as the number of
// candidates grows. `speaker bench` and BenchmarkFailover run it.
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/recoverable"
)

// Monitor is what the bench needs of a candidate's monitor:
// a nodemonitor.Monitor or a znodemonitor.Monitor.
type Monitor interface {
	Notifications() int64
	Observe(ctx context.Context) <-chan election.Status
	Close()
}

// Case is one row of the bench: a recipe at a number of candidates.
type Case struct {
	// Election and Watch name the recipe in the row ("-" for no watch mode).
	Election, Watch string
	// New starts one candidate for listener at path.
	New func(rz *recoverable.RecoverableZookeeper, listener election.Listener, path string, log *slog.Logger) (Monitor, error)
	// Candidates is how many candidates stand at once.
	Candidates int
	// Rounds is how many failovers are measured.
	Rounds int
}

// String names the recipe, as "sequential/predecessor" or "single-file".
func (bc Case) String() string {
	if bc.Watch == "-" {
		return bc.Election
	}
	return bc.Election + "/" + bc.Watch
}

// Row is what one case measured; its JSON is a line of `speaker bench --json`.
type Row struct {
	Election                 string  `json:"election"`
	Watch                    string  `json:"watch"`
	Candidates               int     `json:"candidates"`
	Rounds                   int     `json:"rounds"`
	FailoverMsP50            float64 `json:"failover_ms_p50"`
	FailoverMsP99            float64 `json:"failover_ms_p99"`
	FailoverMsMax            float64 `json:"failover_ms_max"`
	FailoverMsMean           float64 `json:"failover_ms_mean"`
	NotificationsPerFailover float64 `json:"notifications_per_failover"`
	RequestsPerFailover      float64 `json:"requests_per_failover"`
}

// candidate is one in-process candidate: its own session, monitor, and
// a listener that only notes when it was told to speak.
type candidate struct {
	rz      *recoverable.RecoverableZookeeper
	mon     Monitor
	name    string
	started chan<- time.Time
	leading atomic.Bool
	// connected is when its session began: its ping ticker starts then.
	connected time.Time
}

// StartSpeaking notes when the candidate was told to lead.
func (c *candidate) StartSpeaking(func(context.Context) (int64, time.Time, error)) {
	if !c.leading.Swap(true) {
		select {
		case c.started <- time.Now():
		default:
		}
	}
}

// StopSpeaking notes that it no longer leads.
func (c *candidate) StopSpeaking() { c.leading.Store(false) }

// ProcessName names the candidate's znode.
func (c *candidate) ProcessName() string { return c.name }

// Bench runs cases against servers. The packets it counts are summed over
// every server of an ensemble.
type Bench struct {
	servers []string
	session time.Duration
	log     *slog.Logger
	started chan time.Time
	joined  atomic.Int64
	probes  map[string]int64 // srvr calls that each server answered, counted by sample
}

// New returns a Bench whose candidates connect to servers asking for
// session, and log to log.
func New(servers []string, session time.Duration, log *slog.Logger) *Bench {
	return &Bench{servers: servers, session: session, log: log, probes: map[string]int64{}}
}

// Run measures one case: N candidates, then rounds times: close the leader
// gracefully, time until the successor is told to speak, count the watch
// notifications and the packets the servers received, and put a fresh
// candidate at the back so that N stays the same.
func (b *Bench) Run(ctx context.Context, bc Case) (Row, error) {
	row := Row{Election: bc.Election, Watch: bc.Watch, Candidates: bc.Candidates, Rounds: bc.Rounds}
	b.started = make(chan time.Time, bc.Candidates+bc.Rounds+1)
	path := fmt.Sprintf("/zkspeaker-bench/%s-%s-%d-%x", bc.Election, row.Watch, bc.Candidates, rand.Int63())
	live, err := b.spawn(ctx, bc, path, bc.Candidates)
	defer func() { closeAll(live) }()
	if err != nil {
		return row, err
	}
	if _, err := b.waitStarted(ctx, time.Time{}); err != nil {
		return row, err
	}
	var latencies []time.Duration
	var notified, requests int64
	for r := 0; r < bc.Rounds; r++ {
		i := slices.IndexFunc(live, func(c *candidate) bool { return c.leading.Load() })
		if i < 0 {
			return row, fmt.Errorf("round %d: nobody leads", r+1)
		}
		leader := live[i]
		live = slices.Delete(live, i, i+1)
		defer leader.close() // its session too, on every way out; Close is idempotent
		before, err := b.settle(ctx, live)
		if err != nil {
			return row, err
		}
		b.drainStarted() // a leader that paused and resumed may have queued a start
		sent := time.Now()
		leader.mon.Close() // deletes its znode: the graceful way out
		at, err := b.waitStarted(ctx, sent)
		if err != nil {
			return row, fmt.Errorf("round %d: %w", r+1, err)
		}
		latencies = append(latencies, at.Sub(sent))
		// Let the herd, if any, finish: every woken candidate asks again.
		after, err := b.settle(ctx, live)
		if err != nil {
			return row, err
		}
		notified += after.notifications - before.notifications
		requests += after.requests(before) - pings(live, before.at, after.at)
		leader.close() // the session, now that the failover is counted
		more, err := b.spawn(ctx, bc, path, 1)
		live = append(live, more...)
		if err != nil {
			return row, err
		}
	}
	slices.Sort(latencies)
	row.FailoverMsP50 = ms(percentile(latencies, 50))
	row.FailoverMsP99 = ms(percentile(latencies, 99))
	row.FailoverMsMax = ms(latencies[len(latencies)-1])
	var sum time.Duration
	for _, l := range latencies {
		sum += l
	}
	row.FailoverMsMean = ms(sum / time.Duration(len(latencies)))
	row.NotificationsPerFailover = float64(notified) / float64(bc.Rounds)
	row.RequestsPerFailover = float64(requests) / float64(bc.Rounds)
	return row, nil
}

// spawn starts n candidates at once, at most 64 connecting at a time, and
// waits until every one has joined.
func (b *Bench) spawn(ctx context.Context, bc Case, path string, n int) ([]*candidate, error) {
	out := make([]*candidate, n)
	errs := make([]error, n)
	slots := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i], errs[i] = b.join(ctx, bc, path)
		}()
	}
	wg.Wait()
	out = slices.DeleteFunc(out, func(c *candidate) bool { return c == nil })
	if failed := n - len(out); failed > 0 {
		first := errs[slices.IndexFunc(errs, func(err error) bool { return err != nil })]
		return out, fmt.Errorf("%d of %d candidates could not join (a server allows 60 connections per address unless maxClientCnxns=0, as ensemble.sh sets): %w", failed, n, first)
	}
	return out, nil
}

// join connects one candidate and waits until it is in the election.
func (b *Bench) join(ctx context.Context, bc Case, path string) (*candidate, error) {
	c := &candidate{name: fmt.Sprintf("bench-%d", b.joined.Add(1)), started: b.started}
	rz, err := recoverable.Connect(b.servers, b.session, recoverable.WithLogger(b.log))
	if err != nil {
		return nil, err
	}
	c.rz = rz
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := rz.WaitConnected(ctx); err != nil {
		rz.Close()
		return nil, err
	}
	c.connected = time.Now()
	// One znode below the case's own folder serves both recipes: the
	// parent of the sequential candidates, or the single-file znode.
	if c.mon, err = bc.New(rz, c, path+"/election", b.log); err != nil {
		rz.Close()
		return nil, err
	}
	for st := range c.mon.Observe(ctx) {
		if st.Node != "" {
			return c, nil
		}
	}
	c.close()
	return nil, fmt.Errorf("a candidate did not join %s: %w", path, ctx.Err())
}

func (c *candidate) close() {
	if c.mon != nil {
		c.mon.Close()
	}
	c.rz.Close()
}

// waitStarted waits for a StartSpeaking at or after since.
func (b *Bench) waitStarted(ctx context.Context, since time.Time) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		select {
		case at := <-b.started:
			if at.Before(since) {
				continue // left over from before this failover
			}
			return at, nil
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("no successor was told to speak within 30s")
		}
	}
}

// drainStarted empties the start channel without waiting.
func (b *Bench) drainStarted() {
	for {
		select {
		case <-b.started:
		default:
			return
		}
	}
}

// closeAll closes candidates all at once: one after another, each close
// would hand the lead to the next, and under a herd wake every other one.
func closeAll(cs []*candidate) {
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close()
		}()
	}
	wg.Wait()
}

func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
