package main

import (
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
	"zkspeaker/internal/testkit/zktest"
)

// TestMetrics scrapes a holder and a waiter as Prometheus would: the
// holder's zklock_holder is 1, its acquisitions 1 and its epoch set; the
// waiter's zklock_holder is 0; both pass promtool check metrics. A bad
// --metrics is bad input; an address in use, one line and status 1.
func TestMetrics(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	holder := run(t, cluster.ConnString(), "--path", "/metrics-lock", "--name", "first", "--metrics", "127.0.0.1:0", "--", "sleep", "30")
	url := metricstest.URL(t, holder)
	electiontest.Eventually(t, 10*time.Second, "the first holds the lock", func() bool {
		v, _ := metricstest.Value(metricstest.Scrape(t, url), "zklock_holder")
		return v == 1
	})
	waiter := run(t, cluster.ConnString(), "--path", "/metrics-lock", "--name", "second", "--metrics", "127.0.0.1:0", "--", "sleep", "30")
	waiting := metricstest.Scrape(t, metricstest.URL(t, waiter))
	if v, ok := metricstest.Value(waiting, "zklock_holder"); !ok || v != 0 {
		t.Errorf("the waiter's zklock_holder = %v, %v; want 0", v, ok)
	}
	text := metricstest.Scrape(t, url)
	for name, check := range map[string]func(float64) bool{
		"zklock_acquisitions_total": func(v float64) bool { return v == 1 },
		"zklock_epoch":              func(v float64) bool { return v > 0 },
		"zklock_losses_total":       func(v float64) bool { return v == 0 },
		"zklock_wait_seconds_total": func(v float64) bool { return v >= 0 },
	} {
		if v, ok := metricstest.Value(text, name); !ok || !check(v) {
			t.Errorf("%s = %v, %v:\n%s", name, v, ok, text)
		}
	}
	metricstest.Promtool(t, text)
	metricstest.Promtool(t, waiting)
	metricstest.CheckFlag(t, zklockBin(t), "--servers", cluster.ConnString(), "METRICS", "--", "true")
}
