package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// registerDouble registers run's metrics (--metrics): zkbarrier_inside (1
// from the moment the count was in until we left), zkbarrier_members_wanted, the
// time spent waiting to enter and to leave, the places lost inside, and
// the session's.
func registerDouble(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, b *barrier.DoubleBarrier, cfg config) {
	if ms == nil {
		return
	}
	ms.Session("zkbarrier").Follow(ctx, rz)
	inside := prometheus.NewGauge(prometheus.GaugeOpts{Name: "zkbarrier_inside", Help: "1 while this member is past the barrier and has not left; 0 otherwise."})
	count := prometheus.NewGauge(prometheus.GaugeOpts{Name: "zkbarrier_members_wanted", Help: "The members the barrier waits for (--count)."})
	entering := prometheus.NewCounter(prometheus.CounterOpts{Name: "zkbarrier_enter_wait_seconds_total", Help: "Time spent waiting until the count was in."})
	leaving := prometheus.NewCounter(prometheus.CounterOpts{Name: "zkbarrier_leave_wait_seconds_total", Help: "Time spent waiting, after CMD, until every member had left."})
	lost := prometheus.NewCounter(prometheus.CounterOpts{Name: "zkbarrier_lost_total", Help: "Times our member znode went while inside (the others stopped waiting for us)."})
	count.Set(float64(cfg.count))
	ms.Registry.MustRegister(inside, count, entering, leaving, lost)
	states := b.Observe(ctx)
	go func() {
		since := time.Now()
		for st := range states {
			switch st {
			case barrier.StateEntering, barrier.StateLeaving:
				since = time.Now()
			case barrier.StateInside:
				entering.Add(time.Since(since).Seconds())
				inside.Set(1)
			case barrier.StateLost:
				lost.Inc()
				inside.Set(0)
			case barrier.StateLeft:
				leaving.Add(time.Since(since).Seconds())
				inside.Set(0)
			}
		}
	}()
}
