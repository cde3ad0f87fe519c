package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// registerLock registers zklock's metrics (--metrics): zklock_holder (1
// while the lock is held and proved ours), zklock_epoch, the acquisitions,
// the time spent waiting in line, the losses, and the session's.
func registerLock(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, lk *lock.Lock) {
	if ms == nil {
		return
	}
	ms.Session("zklock").Follow(ctx, rz)
	m := &lockMetrics{
		holder:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "zklock_holder", Help: "1 while this process holds the lock, proved so; 0 otherwise."}),
		acquisitions: prometheus.NewCounter(prometheus.CounterOpts{Name: "zklock_acquisitions_total", Help: "Times this process acquired the lock."}),
		waited:       prometheus.NewCounter(prometheus.CounterOpts{Name: "zklock_wait_seconds_total", Help: "Time this process spent waiting in line for the lock."}),
		losses:       prometheus.NewCounter(prometheus.CounterOpts{Name: "zklock_losses_total", Help: "Times the lock was lost while held: expiry, deletion, or another contender first."}),
	}
	epoch := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zklock_epoch", Help: "The lock's epoch while held (ZKLOCK_EPOCH), 0 before."},
		func() float64 { return float64(lk.Epoch()) })
	ms.Registry.MustRegister(m.holder, m.acquisitions, m.waited, m.losses, epoch)
	go m.follow(lk.Observe(ctx))
}

type lockMetrics struct {
	holder                       prometheus.Gauge
	acquisitions, waited, losses prometheus.Counter
}

// follow turns the lock's states into the metrics, until the channel
// closes.
func (m *lockMetrics) follow(states <-chan lock.State) {
	waiting := time.Now()
	last := lock.StateWaiting
	for st := range states {
		switch {
		case st == lock.StateHeld && last == lock.StateWaiting:
			m.acquisitions.Inc()
			m.waited.Add(time.Since(waiting).Seconds())
		case st == lock.StateLost && (last == lock.StateHeld || last == lock.StateSuspended):
			m.losses.Inc()
		}
		if st == lock.StateHeld {
			m.holder.Set(1)
		} else {
			m.holder.Set(0)
		}
		last = st
	}
}
