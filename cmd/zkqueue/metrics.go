package main

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// takerMetrics are take --follow's counters (--metrics); nil-safe.
type takerMetrics struct {
	takenC, lostC prometheus.Counter
}

// registerTaker registers take's metrics: items taken for good, claims
// lost before their Ack, and the session's. It returns nil without
// --metrics.
func registerTaker(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, d queue.Delivery) *takerMetrics {
	if ms == nil {
		return nil
	}
	ms.Session("zkqueue").Follow(ctx, rz)
	labels := prometheus.Labels{"delivery": d.String()}
	m := &takerMetrics{
		takenC: prometheus.NewCounter(prometheus.CounterOpts{Name: "zkqueue_taken_total", ConstLabels: labels,
			Help: "Items this process took for good: deleted (at-most-once), or acknowledged after --work (at-least-once)."}),
		lostC: prometheus.NewCounter(prometheus.CounterOpts{Name: "zkqueue_claims_lost_total", ConstLabels: labels,
			Help: "At-least-once items whose claim ended with an expired session before their Ack; they went back to the queue."}),
	}
	ms.Registry.MustRegister(m.takenC, m.lostC)
	return m
}

func (m *takerMetrics) taken() {
	if m != nil {
		m.takenC.Inc()
	}
}

func (m *takerMetrics) claimLost() {
	if m != nil {
		m.lostC.Inc()
	}
}
