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

	"zkspeaker/internal/testkit/zktest"
)

// benchLine is any line of `speaker bench --json`: a failover row or a
// speaker process row.
type benchLine struct {
	Election      *string  `json:"election"`
	Watch         string   `json:"watch"`
	How           string   `json:"how"`
	RatioToExit   float64  `json:"ratio_to_exit"`
	Candidates    int      `json:"candidates"`
	Rounds        int      `json:"rounds"`
	P50           *float64 `json:"failover_ms_p50"`
	P99           *float64 `json:"failover_ms_p99"`
	Notifications *float64 `json:"notifications_per_failover"`
	Requests      *float64 `json:"requests_per_failover"`
	Writes        *float64 `json:"writes_per_failover"`
	PathRequests  *float64 `json:"path_requests"`
	PathWrites    *float64 `json:"path_writes"`
	RoundTrips    *float64 `json:"round_trips_after_notification"`
	Ratio         float64  `json:"ratio_to_baseline"`
	BaselineP50   float64  `json:"baseline_ms_p50"`
	LeftP50       float64  `json:"left_ms_p50"`
	NotifiedP50   float64  `json:"notified_ms_p50"`
	AnsweredP50   float64  `json:"answered_ms_p50"`
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

// The bench's counts are facts of each recipe, not speeds, and the bench
// counts them exactly, on the wire and by the servers' zxid: with the
// predecessor watch one candidate hears of a failover and decides in one
// round trip; with the children watch or single-file, every waiting
// candidate hears of it (the herd). zk.Lock's row is the baseline.
func TestBenchCounts(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 1)
	const n = 6
	rows := runBench(t, "--servers", cluster.ConnString(), "--candidates", "6", "--rounds", "3", "--warmup", "1", "--process-window", "0")
	if len(rows) != 6 {
		t.Fatalf("want 6 rows (sequential predecessor and children, single-file, predecessor again by resignation, our lock, zk.Lock), got %+v", rows)
	}
	// Per failover, by recipe:
	//   path: the leaver's requests and the successor's until its first line
	//   is confirmed, its writes, the successor's round trips after the
	//   notification; then everyone's notifications (the leaver's own
	//   included), requests and writes.
	// The server is standalone, so a fresh read needs no sync in front
	// (recoverable.ServerMode); on an ensemble each would be one request
	// more, in the same round trip.
	// - predecessor: the leaver's delete; the successor's children; then
	//   its watch on its own znode, after the line. Two notifications: the
	//   successor's, and the leaver's own watch on its znode.
	// - children: the delete; every waiter lists the children again; the
	//   successor confirms with an exists, a second round trip. Everyone
	//   watches the list, the leaver too: n notifications.
	// - single-file: the leaver's exists (is it still ours?) and delete;
	//   each waiter's create and exists together; all creates but one fail,
	//   and a failed create is a transaction too. The holder watches the
	//   znode as the waiters do: n notifications.
	// - lock (recipes/lock): the sequential recipe under a lock's API, so
	//   the same as predecessor: its holder's own watch goes out as Lock
	//   hands the lock over, maybe before Lock's caller runs again, and
	//   after the decision, which its engine logs and the bench counts at.
	// - zk.Lock: the delete; the successor lists the children. Its holder
	//   watches nothing.
	// - predecessor by resignation: the path of an exit; then, off it, the
	//   resigner joins again: the parents made sure of (three creates that
	//   find them, each a transaction), its protected create, the sync and
	//   listing, and its watch on its predecessor.
	type counts struct{ path, pathWrites, trips, notified, requests, writes float64 }
	want := map[string]counts{
		"sequential/predecessor/exit":   {2, 1, 1, 2, 3, 1},
		"sequential/children/exit":      {3, 1, 2, n, 1 + (n - 1) + 1, 1},
		"single-file/-/exit":            {4, 2, 1, n, 2 + 2*(n-1), n},
		"sequential/predecessor/resign": {2, 1, 1, 2, 3 + 7, 1 + 4},
		"lock/-/unlock":                 {2, 1, 1, 2, 3, 1},
		"zk.Lock/-/unlock":              {2, 1, 1, 1, 2, 1},
	}
	for _, r := range rows {
		if r.Election == nil || r.P50 == nil || r.P99 == nil || r.Notifications == nil || r.Requests == nil || r.Writes == nil ||
			r.PathRequests == nil || r.PathWrites == nil || r.RoundTrips == nil || r.Candidates != n || r.Rounds != 3 {
			t.Fatalf("row lacks a field: %+v", r)
		}
		name := *r.Election + "/" + r.Watch + "/" + r.How
		if r.How == "resign" && (r.RatioToExit <= 0) {
			t.Errorf("%s: no ratio to the exit's row: %+v", name, r)
		}
		if *r.P50 <= 0 || *r.P99 < *r.P50 {
			t.Errorf("%s: p50 %v, p99 %v", name, *r.P50, *r.P99)
		}
		// In every failover the leaver's write goes out before the
		// notification it causes, which comes before the answer the
		// successor waits for, and that before its line: so do their medians.
		if r.LeftP50 <= 0 || r.NotifiedP50 < r.LeftP50 || r.AnsweredP50 < r.NotifiedP50 || *r.P50 < r.AnsweredP50 {
			t.Errorf("%s: left %v, notified %v, answered %v, line %v ms after the exit: out of order", name, r.LeftP50, r.NotifiedP50, r.AnsweredP50, *r.P50)
		}
		if *r.Election == "zk.Lock" {
			if r.Ratio != 0 {
				t.Errorf("the baseline compared with itself: %+v", r)
			}
		} else if r.BaselineP50 <= 0 || r.Ratio <= 0 || r.Ratio != *r.P50/r.BaselineP50 {
			t.Errorf("%s: ratio %v, baseline p50 %v, p50 %v", name, r.Ratio, r.BaselineP50, *r.P50)
		}
		got := counts{*r.PathRequests, *r.PathWrites, *r.RoundTrips, *r.Notifications, *r.Requests, *r.Writes}
		if w, ok := want[name]; !ok || got != w {
			t.Errorf("%s: path requests, path writes, round trips, notifications, requests, writes per failover = %v, want %v", name, got, w)
		}
	}
}

// Without --servers, bench starts a standalone server of its own, measures a
// leader and a follower speaker process, and leaves nothing running.
func TestBenchOwnServer(t *testing.T) {
	t.Parallel()
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
	if len(rows) != 6 || strings.Join(roles, ",") != "leader,follower" {
		t.Fatalf("want a failover row, its resignation's, our lock's and zk.Lock's rows, and leader and follower process rows, got %+v", rows)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "zkspeaker-bench-") {
			t.Errorf("left running: %s", strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
}
