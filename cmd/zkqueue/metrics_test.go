package main_test

import (
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
	"zkspeaker/internal/testkit/zktest"
)

// A consumer following a queue, scraped as Prometheus would: it counts
// the items it took, and promtool check metrics passes. A bad --metrics is
// bad input; an address in use, one line and status 1.
func TestTakeMetrics(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	s, p := servers[0], zktest.Path(t)
	for _, v := range []string{"a", "b"} {
		ok(t, "put", "-s", s, p, v)
	}
	taker := zktest.Run(t, bin, "take", "-s", s, "--follow", "--delivery", "at-least-once", "--log-level", "info", "--metrics", "127.0.0.1:0", p)
	url := metricstest.URL(t, taker)
	var text string
	electiontest.Eventually(t, 10*time.Second, `zkqueue_taken_total{delivery="at-least-once"} 2`, func() bool {
		text = metricstest.Scrape(t, url)
		v, _ := metricstest.Value(text, `zkqueue_taken_total{delivery="at-least-once"}`)
		return v == 2
	})
	for _, name := range []string{`zkqueue_claims_lost_total{delivery="at-least-once"}`, "zkqueue_session_expirations_total"} {
		if v, found := metricstest.Value(text, name); !found || v != 0 {
			t.Errorf("%s = %v, %v; want 0", name, v, found)
		}
	}
	metricstest.Promtool(t, text)
	metricstest.CheckFlag(t, bin, "take", "-s", s, "--follow", "METRICS", p)
}
