package main

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/election"
	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// persistMetrics are persist's metrics (--metrics). The process makes a
// new client and Persister when ZooKeeper will not take it back (see
// persistOnce), so the metrics follow whichever is current, and the
// counts carry on across them:
//
//	seqid_leader                      1 while this process leads the persistence
//	seqid_limit_raises_total          limits raised (each after its reservation was stored)
//	seqid_limit_raises_refused_total  raises ZooKeeper refused: we no longer led
//	seqid_next_id{sequence}           the next ID to hand out: every ID below it was handed out
//	seqid_limit{sequence}             workers hand out IDs only below it
//
// with the session's. The workers' own counts (compare-and-set conflicts,
// waits for the limit) are a worker's (Sequence.Stats, seqid bench): the
// one-shot `seqid next` serves no metrics.
type persistMetrics struct {
	session *metrics.Session
	opts    []sequence.Option

	mu              sync.Mutex
	rz              *recoverable.RecoverableZookeeper
	p               *sequence.Persister
	raised, refused int64 // by the Persisters before p
	next, limit     *prometheus.Desc
}

// newPersistMetrics registers persist's metrics; nil when --metrics is off.
func newPersistMetrics(ms *metrics.Server, opts []sequence.Option) *persistMetrics {
	if ms == nil {
		return nil
	}
	m := &persistMetrics{session: ms.Session("seqid"), opts: opts,
		next:  prometheus.NewDesc("seqid_next_id", "The next ID of the sequence: every ID below it was handed out.", []string{"sequence"}, nil),
		limit: prometheus.NewDesc("seqid_limit", "The sequence's limit: workers hand out IDs only below it.", []string{"sequence"}, nil)}
	ms.Registry.MustRegister(m,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seqid_leader",
			Help: "1 while this process leads the persistence of the sequences, 0 otherwise."}, m.leading),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "seqid_limit_raises_total",
			Help: "Limits this process raised, each after storing its reservation."}, func() float64 { r, _ := m.counts(); return r }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "seqid_limit_raises_refused_total",
			Help: "Raises ZooKeeper refused because this process no longer led."}, func() float64 { _, f := m.counts(); return f }))
	return m
}

// follow points the metrics at a new client and its Persister.
func (m *persistMetrics) follow(ctx context.Context, rz *recoverable.RecoverableZookeeper, p *sequence.Persister) {
	if m == nil {
		return
	}
	m.session.Follow(ctx, rz)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p != nil {
		m.raised, m.refused = m.raised+m.p.Raises(), m.refused+m.p.Refused()
	}
	m.rz, m.p = rz, p
}

func (m *persistMetrics) leading() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p != nil && m.p.Monitor().State() == election.StateActive {
		return 1
	}
	return 0
}

func (m *persistMetrics) counts() (raised, refused float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, f := m.raised, m.refused
	if m.p != nil {
		r, f = r+m.p.Raises(), f+m.p.Refused()
	}
	return float64(r), float64(f)
}

// Describe implements prometheus.Collector for the sequences' gauges.
func (m *persistMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.next
	ch <- m.limit
}

// Collect reads every sequence at the scrape, within a second: a server
// that does not answer leaves the gauges out rather than hold the scrape.
func (m *persistMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	rz := m.rz
	m.mu.Unlock()
	if rz == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	list, err := sequence.List(ctx, rz, m.opts...)
	if err != nil {
		return
	}
	for _, s := range list {
		ch <- prometheus.MustNewConstMetric(m.next, prometheus.GaugeValue, float64(s.Next), s.Name)
		ch <- prometheus.MustNewConstMetric(m.limit, prometheus.GaugeValue, float64(s.Limit), s.Name)
	}
}
