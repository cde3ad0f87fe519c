package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// benchCase is one row of `speaker bench`: a recipe at a number of
// candidates.
type benchCase struct {
	election   string
	watch      nodemonitor.WatchMode
	candidates int
	rounds     int
}

// String names the recipe, as "sequential/predecessor" or "single-file".
func (bc benchCase) String() string {
	if bc.election == "single-file" {
		return bc.election
	}
	return bc.election + "/" + bc.watch.String()
}

// benchRow is what one case measured; its JSON is the row's line.
type benchRow struct {
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

// benchCandidate is one in-process candidate: its own session, monitor, and
// a listener that only notes when it was told to speak.
type benchCandidate struct {
	rz      *recoverable.RecoverableZookeeper
	mon     *nodemonitor.Monitor
	name    string
	started chan<- time.Time
	leading atomic.Bool
	// connected is when its session began: its ping ticker starts then.
	connected time.Time
}

func (c *benchCandidate) StartSpeaking() {
	if !c.leading.Swap(true) {
		select {
		case c.started <- time.Now():
		default:
		}
	}
}
func (c *benchCandidate) StopSpeaking()       { c.leading.Store(false) }
func (c *benchCandidate) ProcessName() string { return c.name }

// bench runs the cases against servers. The packets it counts are summed
// over every server of an ensemble.
type bench struct {
	servers []string
	session time.Duration
	log     *slog.Logger
	started chan time.Time
	joined  atomic.Int64
	probes  map[string]int64 // srvr calls that each server answered, counted by sample
}

// run measures one case: N candidates, then rounds times: close the leader
// gracefully, time until the successor is told to speak, count the watch
// notifications and the packets the servers received, and put a fresh
// candidate at the back so that N stays the same.
func (b *bench) run(ctx context.Context, bc benchCase) (benchRow, error) {
	row := benchRow{Election: bc.election, Watch: bc.watch.String(), Candidates: bc.candidates, Rounds: bc.rounds}
	if bc.election == "single-file" {
		row.Watch = "-"
	}
	b.started = make(chan time.Time, bc.candidates+bc.rounds+1)
	path := fmt.Sprintf("/zkspeaker-bench/%s-%s-%d-%x", bc.election, row.Watch, bc.candidates, rand.Int63())
	live, err := b.spawn(ctx, bc, path, bc.candidates)
	defer func() { closeAll(live) }()
	if err != nil {
		return row, err
	}
	if _, err := b.waitStarted(ctx, time.Time{}); err != nil {
		return row, err
	}
	var latencies []time.Duration
	var notified, requests int64
	for r := 0; r < bc.rounds; r++ {
		i := slices.IndexFunc(live, func(c *benchCandidate) bool { return c.leading.Load() })
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
	row.NotificationsPerFailover = float64(notified) / float64(bc.rounds)
	row.RequestsPerFailover = float64(requests) / float64(bc.rounds)
	return row, nil
}

// spawn starts n candidates at once, at most 64 connecting at a time, and
// waits until every one has joined.
func (b *bench) spawn(ctx context.Context, bc benchCase, path string, n int) ([]*benchCandidate, error) {
	out := make([]*benchCandidate, n)
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
	out = slices.DeleteFunc(out, func(c *benchCandidate) bool { return c == nil })
	if failed := n - len(out); failed > 0 {
		first := errs[slices.IndexFunc(errs, func(err error) bool { return err != nil })]
		return out, fmt.Errorf("%d of %d candidates could not join (a server allows 60 connections per address unless maxClientCnxns=0, as ensemble.sh sets): %w", failed, n, first)
	}
	return out, nil
}

// join connects one candidate and waits until it is in the election.
func (b *bench) join(ctx context.Context, bc benchCase, path string) (*benchCandidate, error) {
	c := &benchCandidate{name: fmt.Sprintf("bench-%d", b.joined.Add(1)), started: b.started}
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
	opts := []nodemonitor.Option{nodemonitor.WithLogger(b.log)}
	if bc.election == "single-file" {
		c.mon, err = znodemonitor.New(rz, c, append(opts, nodemonitor.WithPath(path+"/leader"))...)
	} else {
		c.mon, err = nodemonitor.New(rz, c, append(opts, nodemonitor.WithPath(path), nodemonitor.WithWatch(bc.watch))...)
	}
	if err != nil {
		rz.Close()
		return nil, err
	}
	for c.mon.Node() == "" {
		select {
		case <-ctx.Done():
			c.close()
			return nil, fmt.Errorf("a candidate did not join %s: %w", path, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
	return c, nil
}

func (c *benchCandidate) close() {
	if c.mon != nil {
		c.mon.Close()
	}
	c.rz.Close()
}

// waitStarted waits for a StartSpeaking at or after since.
func (b *bench) waitStarted(ctx context.Context, since time.Time) (time.Time, error) {
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
func (b *bench) drainStarted() {
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
func closeAll(cs []*benchCandidate) {
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

// pings counts the pings that the candidates' sessions sent between t0 and
// t1. go-zookeeper pings on a ticker, every third of the negotiated
// timeout from the moment it connected, whatever else it sends; the
// sessions of one batch tick together, so an average rate would be wrong
// for any one window, and the ticks are counted instead.
func pings(cs []*benchCandidate, t0, t1 time.Time) int64 {
	n := int64(0)
	for _, c := range cs {
		every := c.rz.SessionTimeout() / 3
		if every <= 0 {
			continue
		}
		n += int64(t1.Sub(c.connected)/every) - int64(t0.Sub(c.connected)/every)
	}
	return n
}

// sample is the state of the world at one moment: notifications delivered
// to the live candidates, and the packets each server has received.
type sample struct {
	at            time.Time
	notifications int64
	received      map[string]int64 // by server; a server that is down is absent
	probes        map[string]int64 // our srvr calls to it so far: each is a packet too
}

// requests is the packets received since s0 that were not our own srvr,
// counted over the servers that answered both times.
func (s sample) requests(s0 sample) int64 {
	n := int64(0)
	for addr, r := range s.received {
		if r0, ok := s0.received[addr]; ok {
			n += r - r0 - (s.probes[addr] - s0.probes[addr])
		}
	}
	return n
}

func (b *bench) sample(ctx context.Context, live []*benchCandidate) (sample, error) {
	if err := ctx.Err(); err != nil {
		return sample{}, err
	}
	s := sample{at: time.Now(), received: map[string]int64{}, probes: map[string]int64{}}
	for _, c := range live {
		s.notifications += c.mon.Notifications()
	}
	for _, addr := range b.servers {
		info := recoverable.Srvr(ctx, addr)
		if info.Mode == "down" {
			continue // an ensemble may have a server down; count the others
		}
		b.probes[addr]++
		s.received[addr], s.probes[addr] = info.Received, b.probes[addr]
	}
	if len(s.received) == 0 {
		return s, fmt.Errorf("no server answered srvr at %s", strings.Join(b.servers, ","))
	}
	return s, nil
}

// settle waits until the notification count has not moved for 50 ms, and
// at least 20 ms have passed: the herd, if any, has had its say.
func (b *bench) settle(ctx context.Context, live []*benchCandidate) (sample, error) {
	time.Sleep(20 * time.Millisecond)
	prev, err := b.sample(ctx, live)
	for err == nil {
		time.Sleep(50 * time.Millisecond)
		var cur sample
		if cur, err = b.sample(ctx, live); err == nil && cur.notifications == prev.notifications {
			return cur, nil
		}
		prev = cur
	}
	return prev, err
}

func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
