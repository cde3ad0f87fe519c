package main_test

import (
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
)

// TestJoinMetrics scrapes a member as Prometheus would: zkgroup_member is
// 1 once it joined, and promtool check metrics passes. A bad --metrics is
// bad input; an address in use, one line and status 1.
func TestJoinMetrics(t *testing.T) {
	t.Parallel()
	needServer(t)
	s := servers[0]
	createGroup(t, "metrics-zoo")
	url := metricstest.URL(t, start(t, "join", "-s", s, "--metrics", "127.0.0.1:0", "metrics-zoo", "owl"))
	var text string
	electiontest.Eventually(t, 10*time.Second, "zkgroup_member 1", func() bool {
		text = metricstest.Scrape(t, url)
		v, _ := metricstest.Value(text, "zkgroup_member")
		return v == 1
	})
	for _, name := range []string{"zkgroup_rejoins_total", "zkgroup_session_expirations_total"} {
		if v, ok := metricstest.Value(text, name); !ok || v != 0 {
			t.Errorf("%s = %v, %v; want 0", name, v, ok)
		}
	}
	metricstest.Promtool(t, text)
	metricstest.CheckFlag(t, bin, "join", "-s", s, "METRICS", "metrics-zoo", "emu")
}
