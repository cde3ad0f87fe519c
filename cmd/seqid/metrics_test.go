package main_test

import (
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
)

// TestPersistMetrics scrapes a persistence leader as Prometheus would: it
// leads (seqid_leader 1), raised a limit, and shows each sequence's next
// ID moving as IDs are handed out; promtool check metrics passes. A bad
// --metrics is bad input; an address in use, one line and status 1.
func TestPersistMetrics(t *testing.T) {
	t.Parallel()
	conn := server(t)
	root := []string{"--servers", conn, "--root", "/metrics-sequences"}
	mustSeqid(t, append(append([]string{"create"}, root...), "--start", "10", "tickets")...)
	p := startPersister(t, conn, t.TempDir(), "keeper", "--root", "/metrics-sequences", "--election", "/metrics-persist", "--metrics", "127.0.0.1:0")
	url := metricstest.URL(t, p.p)
	electiontest.Eventually(t, 10*time.Second, "the persister leads and raised the limit", func() bool {
		text := metricstest.Scrape(t, url)
		lead, _ := metricstest.Value(text, "seqid_leader")
		raises, _ := metricstest.Value(text, "seqid_limit_raises_total")
		return lead == 1 && raises >= 1
	})
	mustSeqid(t, append(append([]string{"next"}, root...), "--count", "5", "tickets")...)
	text := metricstest.Scrape(t, url)
	if v, ok := metricstest.Value(text, `seqid_next_id{sequence="tickets"}`); !ok || v != 15 {
		t.Errorf(`seqid_next_id{sequence="tickets"} = %v, %v; want 15 after five IDs from 10:`+"\n%s", v, ok, text)
	}
	if v, ok := metricstest.Value(text, `seqid_limit{sequence="tickets"}`); !ok || v <= 15 {
		t.Errorf(`seqid_limit{sequence="tickets"} = %v, %v; want above 15`, v, ok)
	}
	metricstest.Promtool(t, text)
	metricstest.CheckFlag(t, bin, "persist", "--servers", conn, "--store", t.TempDir(), "METRICS")
}
