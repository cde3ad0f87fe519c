package main

import (
	"context"
	"os"
	"path/filepath"
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
	cluster := zktest.Shared(t)
	holder := run(t, cluster.ConnString(), "--path", "/metrics-lock", "--name", "first", "--metrics", "127.0.0.1:0", "--", "sleep", "30")
	url := metricstest.URL(t, holder)
	electiontest.Eventually(t, 10*time.Second, "the first holds the lock", func() bool {
		v, _ := metricstest.Value(metricstest.Scrape(t, url), `zklock_holder{mode="write"}`)
		return v == 1
	})
	waiter := run(t, cluster.ConnString(), "--path", "/metrics-lock", "--name", "second", "--metrics", "127.0.0.1:0", "--", "sleep", "30")
	waiting := metricstest.Scrape(t, metricstest.URL(t, waiter))
	if v, ok := metricstest.Value(waiting, `zklock_holder{mode="write"}`); !ok || v != 0 {
		t.Errorf("the waiter's zklock_holder = %v, %v; want 0", v, ok)
	}
	text := metricstest.Scrape(t, url)
	for name, check := range map[string]func(float64) bool{
		`zklock_acquisitions_total{mode="write"}`: func(v float64) bool { return v == 1 },
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

// The grace after SIGTERM, while CMD winds down and the lock is still
// held, is when an operator most wants to see the holder: the metrics stay
// up until zklock exits.
func TestMetricsStayUpDuringTheGrace(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	ready := filepath.Join(t.TempDir(), "ready")
	holder := run(t, cluster.ConnString(), "--path", "/metrics-grace", "--name", "slow", "--metrics", "127.0.0.1:0", "--grace", "2s",
		"--", "sh", "-c", "trap '' TERM; touch "+ready+"; sleep 30")
	url := metricstest.URL(t, holder)
	electiontest.Eventually(t, 10*time.Second, "it holds the lock, and CMD ignores SIGTERM", func() bool {
		v, _ := metricstest.Value(metricstest.Scrape(t, url), `zklock_holder{mode="write"}`)
		_, err := os.Stat(ready)
		return v == 1 && err == nil
	})
	holder.Term()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := holder.WaitForStderr(ctx, "asked to stop"); err != nil {
		t.Fatalf("no word of stopping: %v\n%s", err, holder.Stderr())
	}
	// CMD ignores SIGTERM: zklock waits out its grace of 2 s, holding the lock.
	if v, ok := metricstest.Value(metricstest.Scrape(t, url), `zklock_holder{mode="write"}`); !ok || v != 1 {
		t.Errorf("during the grace zklock_holder = %v, %v; want 1\n%s", v, ok, holder.Stderr())
	}
	if code := wait(t, holder, 10*time.Second); code == 0 {
		t.Errorf("zklock exited 0 after its CMD was killed")
	}
}

// A lease's holder says its mode, and the semaphore's number of leases.
func TestMetricsOfALease(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	holder := run(t, cluster.ConnString(), "--leases", "2", "--metrics", "127.0.0.1:0", "--", "sleep", "30")
	url := metricstest.URL(t, holder)
	electiontest.Eventually(t, 10*time.Second, "the lease is held", func() bool {
		v, _ := metricstest.Value(metricstest.Scrape(t, url), `zklock_holder{mode="lease"}`)
		return v == 1
	})
	text := metricstest.Scrape(t, url)
	if v, ok := metricstest.Value(text, "zklock_leases"); !ok || v != 2 {
		t.Errorf("zklock_leases = %v, %v; want 2:\n%s", v, ok, text)
	}
	metricstest.Promtool(t, text)
}
