package main_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/metricstest"
	"zkspeaker/internal/testkit/zktest"
)

// TestMetricsFollowTheElection scrapes three real speakers as Prometheus
// would: speaker_leader is 1 on the one that writes and 0 on the others;
// after SIGTERM of the leader exactly one other becomes 1; its lines and
// epoch move with it; and every scrape passes promtool check metrics.
func TestMetricsFollowTheElection(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	out := filepath.Join(t.TempDir(), "out.txt")
	procs := speakersWith(t, []string{"--path", zktest.Path(t), "--metrics", "127.0.0.1:0"}, cluster.ConnString(), out, "sequential", 100*time.Millisecond, "a", "b", "c")
	urls := map[string]string{}
	for name, p := range procs {
		urls[name] = metricstest.URL(t, p)
	}
	leaders := func(names ...string) string {
		var on []string
		for _, name := range names {
			if v, ok := metricstest.Value(metricstest.Scrape(t, urls[name]), "speaker_leader"); ok && v == 1 {
				on = append(on, name)
			}
		}
		return strings.Join(on, ",")
	}
	first := electiontest.WaitTerms(t, out, 10*time.Second, "someone speaks", func(ts []electiontest.Term) bool { return len(ts) == 1 && ts[0].Lines >= 3 })
	leader := first[0].Name
	electiontest.Eventually(t, 5*time.Second, "speaker_leader 1 on "+leader+" alone", func() bool { return leaders("a", "b", "c") == leader })
	text := metricstest.Scrape(t, urls[leader])
	metricstest.Promtool(t, text)
	for _, want := range []string{"speaker_epoch", "speaker_lines_written_total", "speaker_lines_refused_total", "speaker_paused_seconds_total",
		"speaker_session_expirations_total", `speaker_leadership_changes_total{reason="elected"}`, "speaker_confirm_seconds_count",
		"go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := metricstest.Value(text, want); !ok {
			t.Errorf("the leader's metrics lack %s:\n%s", want, text)
		}
	}
	if v, _ := metricstest.Value(text, "speaker_lines_written_total"); v < 3 {
		t.Errorf("speaker_lines_written_total = %v on the leader, which wrote %d lines or more", v, 3)
	}

	procs[leader].Signal(syscall.SIGTERM)
	rest := []string{}
	for _, name := range []string{"a", "b", "c"} {
		if name != leader {
			rest = append(rest, name)
		}
	}
	var next string
	electiontest.Eventually(t, sessionTimeout, "exactly one other speaker_leader 1", func() bool {
		next = leaders(rest...)
		return next != "" && !strings.Contains(next, ",")
	})
	// Its first line, and so its epoch, may come a moment after it leads.
	electiontest.Eventually(t, time.Second+electiontest.Slack, next+"'s first line and epoch in its metrics", func() bool {
		text = metricstest.Scrape(t, urls[next])
		lines, _ := metricstest.Value(text, "speaker_lines_written_total")
		epoch, _ := metricstest.Value(text, "speaker_epoch")
		return lines >= 1 && epoch > 0
	})
	metricstest.Promtool(t, text)
	if v, ok := metricstest.Value(text, `speaker_leadership_changes_total{reason="elected"}`); !ok || v != 1 {
		t.Errorf("%s: elected %v times, want once:\n%s", next, v, text)
	}
	t.Logf("speaker_leader moved from %s to %s", leader, next)
}

// A bad --metrics is bad input; an address in use is one line, status 1.
func TestMetricsFlag(t *testing.T) {
	t.Parallel()
	metricstest.CheckFlag(t, zktest.BuildSpeaker(t), "--servers", "127.0.0.1:1", "--out", filepath.Join(t.TempDir(), "out.txt"), "METRICS")
}
