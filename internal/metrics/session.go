package metrics

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/recoverable"
)

// Session collects what a process's ZooKeeper sessions went through: the
// retries of each operation after a lost connection (read from the client
// at each scrape) and the sessions' expirations (counted as they happen).
// A process that replaces its client (seqid persist) points it at the new
// one with Follow; the counts carry on.
type Session struct {
	retries  *prometheus.Desc
	expiries *prometheus.Desc
	expired  atomic.Int64

	mu   sync.Mutex
	rz   *recoverable.RecoverableZookeeper
	done map[string]int64 // retries of the clients followed before rz
}

// Session registers prefix_zookeeper_retries_total{op} and
// prefix_session_expirations_total. On a nil Server it returns nil, whose
// Follow does nothing.
func (s *Server) Session(prefix string) *Session {
	if s == nil {
		return nil
	}
	c := &Session{done: map[string]int64{},
		retries: prometheus.NewDesc(prefix+"_zookeeper_retries_total",
			"Operations tried again after a lost connection, by operation.", []string{"op"}, nil),
		expiries: prometheus.NewDesc(prefix+"_session_expirations_total",
			"ZooKeeper sessions that expired under this process.", nil, nil)}
	s.Registry.MustRegister(c)
	return c
}

// Follow counts rz's retries and expirations from now on, until ctx ends.
func (c *Session) Follow(ctx context.Context, rz *recoverable.RecoverableZookeeper) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.rz != nil {
		for op, n := range c.rz.Retries() {
			c.done[op] += n
		}
	}
	c.rz = rz
	c.mu.Unlock()
	events := rz.Observe(ctx)
	go func() {
		for ev := range events {
			if ev.State == recoverable.StateExpired {
				c.expired.Add(1)
			}
		}
	}()
}

// Describe implements prometheus.Collector.
func (c *Session) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.retries
	ch <- c.expiries
}

// Collect implements prometheus.Collector.
func (c *Session) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	all := map[string]int64{}
	for op, n := range c.done {
		all[op] += n
	}
	if c.rz != nil {
		for op, n := range c.rz.Retries() {
			all[op] += n
		}
	}
	c.mu.Unlock()
	for op, n := range all {
		ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(n), op)
	}
	ch <- prometheus.MustNewConstMetric(c.expiries, prometheus.CounterValue, float64(c.expired.Load()))
}
