package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"zkspeaker/internal/zktest"
)

// benchLine is any line of `speaker bench --json`: a failover row or a
// speaker process row.
type benchLine struct {
	Election      *string  `json:"election"`
	Watch         string   `json:"watch"`
	Candidates    int      `json:"candidates"`
	Rounds        int      `json:"rounds"`
	P50           *float64 `json:"failover_ms_p50"`
	P99           *float64 `json:"failover_ms_p99"`
	Notifications *float64 `json:"notifications_per_failover"`
	Requests      *float64 `json:"requests_per_failover"`
	Process       string   `json:"process"`
	Role          string   `json:"role"`
	RSSMB         float64  `json:"rss_mb"`
}

func runBench(t *testing.T, args ...string) []benchLine {
	t.Helper()
	p := zktest.RunSpeaker(t, append([]string{"bench", "--json"}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("speaker bench %v: exit %d, %v\n%s", args, code, err, p.Stderr())
	}
	var lines []benchLine
	sc := bufio.NewScanner(strings.NewReader(p.Stdout()))
	for sc.Scan() {
		var l benchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not JSON: %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

// The bench's counts are facts of each recipe, not speeds: with the
// predecessor watch one candidate hears of a failover; with the children
// watch or single-file, every waiting candidate does (the herd).
func TestBenchCounts(t *testing.T) {
	cluster := zktest.Start(t, 1)
	const n = 6
	rows := runBench(t, "--servers", cluster.ConnString(), "--candidates", "6", "--rounds", "3", "--process-window", "0")
	if len(rows) != 3 {
		t.Fatalf("want 3 rows (sequential predecessor and children, single-file), got %+v", rows)
	}
	for _, r := range rows {
		if r.Election == nil || r.P50 == nil || r.P99 == nil || r.Notifications == nil || r.Requests == nil || r.Candidates != n || r.Rounds != 3 {
			t.Fatalf("row lacks a field: %+v", r)
		}
		if *r.P50 <= 0 || *r.P99 < *r.P50 {
			t.Errorf("%s/%s: p50 %v, p99 %v", *r.Election, r.Watch, *r.P50, *r.P99)
		}
		herd := *r.Election == "single-file" || r.Watch == "children"
		want := 1.0
		if herd {
			want = n - 1
		}
		if *r.Notifications != want {
			t.Errorf("%s/%s: %v notifications per failover, want %v", *r.Election, r.Watch, *r.Notifications, want)
		}
		// The requests of one failover, by recipe:
		// - predecessor: the leader's delete, the successor's children and
		//   its exists watch on itself;
		// - children: the delete, and every waiter lists the children again;
		// - single-file: the leader's exists and delete; each loser's create
		//   and exists watch, sent together (the watch's stat names the
		//   owner); the winner's create and watch, together.
		wantReq := map[string]float64{"predecessor": 3, "children": n, "-": 2 + 2*(n-2) + 2}[r.Watch]
		// One off is allowed: bench counts pings by their ticker, and a
		// tick placed a few ms off can fall on the other side of a window.
		if d := *r.Requests - wantReq; d < -1 || d > 1 {
			t.Errorf("%s/%s: %v requests per failover, want %v", *r.Election, r.Watch, *r.Requests, wantReq)
		}
	}
}

// Without --servers, bench starts a standalone server of its own, measures a
// leader and a follower speaker process, and leaves nothing running.
func TestBenchOwnServer(t *testing.T) {
	rows := runBench(t, "--candidates", "3", "--rounds", "2", "--election", "sequential", "--watch", "predecessor", "--process-window", "1s")
	var roles []string
	for _, r := range rows {
		if r.Process == "speaker" {
			roles = append(roles, r.Role)
			if r.RSSMB <= 0 {
				t.Errorf("%s: rss %v MB", r.Role, r.RSSMB)
			}
		}
	}
	if len(rows) != 3 || strings.Join(roles, ",") != "leader,follower" {
		t.Fatalf("want a failover row and leader and follower process rows, got %+v", rows)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "zkspeaker-bench-") {
			t.Errorf("left running: %s", strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
}
