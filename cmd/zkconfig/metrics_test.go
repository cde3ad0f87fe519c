package main_test

import (
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
)

// TestWatchMetrics scrapes a watcher as Prometheus would: the key's
// version and the values seen move as the key is set; promtool check
// metrics passes. A bad --metrics is bad input; an address in use, one
// line and status 1.
func TestWatchMetrics(t *testing.T) {
	t.Parallel()
	s := server(t)
	base := fresh("/metrics-config")
	url := metricstest.URL(t, start(t, "watch", "-s", s, "--path", base, "--metrics", "127.0.0.1:0", "colour"))
	for version, value := range []string{"red", "green"} {
		mustRun(t, "set", "-s", s, "--path", base, "colour", value)
		electiontest.Eventually(t, 5*time.Second, "the watcher's metrics at version "+value, func() bool {
			v, _ := metricstest.Value(metricstest.Scrape(t, url), "zkconfig_version")
			e, _ := metricstest.Value(metricstest.Scrape(t, url), "zkconfig_key_exists")
			return v == float64(version) && e == 1
		})
	}
	text := metricstest.Scrape(t, url)
	if v, _ := metricstest.Value(text, "zkconfig_values_seen_total"); v < 3 {
		t.Errorf("zkconfig_values_seen_total = %v, want 3 (absent, red, green)", v)
	}
	metricstest.Promtool(t, text)
	metricstest.CheckFlag(t, bin, "watch", "-s", s, "METRICS", "colour")
}
