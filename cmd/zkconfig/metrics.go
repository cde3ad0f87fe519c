package main

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"zkspeaker/internal/metrics"
	"zkspeaker/recipes/config"
	"zkspeaker/recoverable"
)

// registerWatch registers watch's metrics (--metrics): the values seen,
// the key's version and whether it exists, and the session's. It returns
// the values for printing, each counted on its way.
func registerWatch(ctx context.Context, ms *metrics.Server, rz *recoverable.RecoverableZookeeper, values <-chan config.Value) <-chan config.Value {
	if ms == nil {
		return values
	}
	ms.Session("zkconfig").Follow(ctx, rz)
	seen := prometheus.NewCounter(prometheus.CounterOpts{Name: "zkconfig_values_seen_total",
		Help: "Values of the key this watcher saw: the first, then one per change it read (changes between two reads are seen as one)."})
	version := prometheus.NewGauge(prometheus.GaugeOpts{Name: "zkconfig_version",
		Help: "The version of the key's value last seen (its writes since it was created)."})
	exists := prometheus.NewGauge(prometheus.GaugeOpts{Name: "zkconfig_key_exists",
		Help: "1 while the key exists, 0 otherwise."})
	ms.Registry.MustRegister(seen, version, exists)
	out := make(chan config.Value)
	go func() {
		defer close(out)
		for v := range values {
			seen.Inc()
			version.Set(float64(v.Version))
			if v.Exists {
				exists.Set(1)
			} else {
				exists.Set(0)
			}
			out <- v
		}
	}()
	return out
}
