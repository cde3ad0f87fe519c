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
// the time spent waiting in line, the losses, and the session's. The
// holder and the acquisitions carry the lock's mode (write, read, lease),
// and a semaphore's number of leases is zklock_leases.
func registerLock(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, lk *lock.Lock, s settings) {
	if ms == nil {
		return
	}
	ms.Session("zklock").Follow(ctx, rz)
	mode := prometheus.Labels{"mode": s.mode()}
	m := &lockMetrics{
		holder:       prometheus.NewGauge(prometheus.GaugeOpts{Name: "zklock_holder", Help: "1 while this process holds the lock, proved so; 0 otherwise.", ConstLabels: mode}),
		acquisitions: prometheus.NewCounter(prometheus.CounterOpts{Name: "zklock_acquisitions_total", Help: "Times this process acquired the lock.", ConstLabels: mode}),
		waited:       prometheus.NewCounter(prometheus.CounterOpts{Name: "zklock_wait_seconds_total", Help: "Time this process spent waiting in line for the lock."}),
		losses:       prometheus.NewCounter(prometheus.CounterOpts{Name: "zklock_losses_total", Help: "Times the lock was lost while held: expiry, deletion, or another contender first."}),
	}
	epoch := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "zklock_epoch", Help: "The lock's epoch while held (ZKLOCK_EPOCH), 0 before."},
		func() float64 { return float64(lk.Epoch()) })
	ms.Registry.MustRegister(m.holder, m.acquisitions, m.waited, m.losses, epoch)
	if s.leases > 0 {
		leases := prometheus.NewGauge(prometheus.GaugeOpts{Name: "zklock_leases", Help: "The semaphore's number of leases (--leases): at most this many hold at once."})
		leases.Set(float64(s.leases))
		ms.Registry.MustRegister(leases)
	}
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
