package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/election"
)

// Leadership registers, for one candidate of an election:
//
//	prefix_<role>                      1 while it leads (or holds) with its
//	                                   connection, 0 otherwise (paused: 0)
//	prefix_leadership_changes_total    changes, by reason (elected, resumed,
//	                                   paused, resigned, expired, deleted,
//	                                   lost, closed)
//	prefix_paused_seconds_total        time spent paused: leading with the
//	                                   connection lost
//
// and keeps them from statuses (the monitor's Observe) until that channel
// closes, which ends its goroutine. role is "leader" or "holder".
func (s *Server) Leadership(prefix, role string, statuses <-chan election.Status) {
	l := &leadership{
		leads: prometheus.NewGauge(prometheus.GaugeOpts{Name: prefix + "_" + role,
			Help: "1 while this process is the " + role + " with its connection to ZooKeeper, 0 otherwise (paused included: see " + prefix + "_paused_seconds_total)."}),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: prefix + "_leadership_changes_total",
			Help: "Changes of this process's leadership, by reason."}, []string{"reason"}),
	}
	paused := prometheus.NewCounterFunc(prometheus.CounterOpts{Name: prefix + "_paused_seconds_total",
		Help: "Time this process spent paused: leading, with its connection to ZooKeeper lost."}, l.pausedSeconds)
	s.Registry.MustRegister(l.leads, l.changes, paused)
	go l.follow(statuses)
}

// leadership keeps one candidate's metrics.
type leadership struct {
	leads   prometheus.Gauge
	changes *prometheus.CounterVec

	mu          sync.Mutex
	paused      time.Duration
	pausedSince time.Time // zero unless paused now
}

// follow turns each change of state into the metrics.
func (l *leadership) follow(statuses <-chan election.Status) {
	last := election.StateInactive
	for st := range statuses {
		if st.State == last {
			continue
		}
		l.mu.Lock()
		if !l.pausedSince.IsZero() {
			l.paused += time.Since(l.pausedSince)
			l.pausedSince = time.Time{}
		}
		if st.State == election.StatePaused {
			l.pausedSince = time.Now()
		}
		l.mu.Unlock()
		if st.State == election.StateActive {
			l.leads.Set(1)
		} else {
			l.leads.Set(0)
		}
		leading := func(s election.State) bool { return s == election.StateActive || s == election.StatePaused }
		if (leading(st.State) || leading(last)) && st.Why != "" {
			l.changes.WithLabelValues(st.Why).Inc()
		}
		last = st.State
	}
}

func (l *leadership) pausedSeconds() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.paused
	if !l.pausedSince.IsZero() {
		d += time.Since(l.pausedSince)
	}
	return d.Seconds()
}
