package main

import (
	"testing"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
	"zkspeaker/internal/testkit/zktest"
)

// TestRunMetrics scrapes a member as Prometheus would: zkbarrier_members_wanted is
// N, zkbarrier_inside 0 while it waits for the others and 1 once all are
// in, and promtool check metrics passes. A bad --metrics is bad input; an
// address in use, one line and status 1.
func TestRunMetrics(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	path := zktest.Path(t)
	args := func(extra ...string) []string {
		return append(append([]string{"run", "-s", servers[0], "--session-timeout", session.String(), "--count", "2"}, extra...), path, "--", "sleep", "2")
	}
	url := metricstest.URL(t, zktest.Run(t, bin, args("--metrics", "127.0.0.1:0")...))
	text := metricstest.Scrape(t, url)
	if v, _ := metricstest.Value(text, "zkbarrier_members_wanted"); v != 2 {
		t.Errorf("zkbarrier_members_wanted %v, want 2", v)
	}
	if v, ok := metricstest.Value(text, "zkbarrier_inside"); !ok || v != 0 {
		t.Errorf("zkbarrier_inside %v, %v before the second member; want 0", v, ok)
	}
	zktest.Run(t, bin, args()...)
	electiontest.Eventually(t, 10*session, "zkbarrier_inside 1", func() bool {
		text = metricstest.Scrape(t, url)
		v, _ := metricstest.Value(text, "zkbarrier_inside")
		return v == 1
	})
	if v, _ := metricstest.Value(text, "zkbarrier_enter_wait_seconds_total"); v <= 0 {
		t.Errorf("zkbarrier_enter_wait_seconds_total %v after a wait for the second member, want more than 0", v)
	}
	metricstest.Promtool(t, text)
	metricstest.CheckFlag(t, bin, args("METRICS")...)
}
