package main

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/group"
	"zkspeaker/recoverable"
)

// registerMember registers join's metrics (--metrics): zkgroup_member (1
// while the member's znode is in the group, owned by its live session),
// its rejoins after an expiry or a deletion, and the session's.
func registerMember(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, m *group.Member) {
	if ms == nil {
		return
	}
	ms.Session("zkgroup").Follow(ctx, rz)
	member := prometheus.NewGauge(prometheus.GaugeOpts{Name: "zkgroup_member",
		Help: "1 while this process's member znode is in the group, owned by its live session; 0 otherwise."})
	rejoins := prometheus.NewCounter(prometheus.CounterOpts{Name: "zkgroup_rejoins_total",
		Help: "Times the member joined again, after its session expired or its znode was deleted."})
	ms.Registry.MustRegister(member, rejoins)
	statuses := m.Observe(ctx)
	go func() {
		for st := range statuses {
			if st.State == group.StateMember {
				member.Set(1)
			} else {
				member.Set(0)
			}
			if st.State == group.StateMember && st.Rejoined {
				rejoins.Inc()
			}
		}
	}()
}
