package main_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// `seqid bench` measures each case in order (backoff, then batch, then
// mode, then separate workers, then goroutines sharing one worker), the
// ceiling with the first batch only, with counts that add up, goroutines
// that share their writes, and leaves nothing behind on the server.
func TestBenchRuns(t *testing.T) {
	t.Parallel()
	out := mustSeqid(t, "bench", "--servers", server(t), "--workers", "1,3", "--goroutines", "8", "--batch", "1,10",
		"--backoff", "none,5ms-200ms", "--warmup", "300ms", "--duration", "200ms", "--repeat", "2", "--json")
	type row struct {
		Mode       string  `json:"mode"`
		Backoff    string  `json:"backoff"`
		Batch      int64   `json:"batch"`
		Workers    int     `json:"workers"`
		Goroutines int     `json:"goroutines"`
		IDs        int64   `json:"ids"`
		IDsPerSec  float64 `json:"ids_per_second"`
		CASPerSec  float64 `json:"cas_per_second"`
		Conflicts  float64 `json:"conflicts_per_cas"`
		Waits      int64   `json:"waits"`
	}
	var rows []row
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r row
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("not JSON: %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	var want []row
	for _, backoff := range []string{"none", "5ms-200ms"} {
		for _, batch := range []int64{1, 10} {
			for _, mode := range []string{"cas", "counter", "setdata"} {
				if mode == "setdata" && (backoff != "none" || batch != 1) {
					continue
				}
				b := batch
				if mode == "setdata" {
					b = 1 // a set is a set
				}
				want = append(want, row{Mode: mode, Backoff: backoff, Batch: b, Workers: 1, Goroutines: 1},
					row{Mode: mode, Backoff: backoff, Batch: b, Workers: 3, Goroutines: 1},
					row{Mode: mode, Backoff: backoff, Batch: b, Workers: 1, Goroutines: 8})
			}
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d: %s", len(rows), len(want), out)
	}
	for i, r := range rows {
		w := want[i]
		if r.Mode != w.Mode || r.Backoff != w.Backoff || r.Batch != w.Batch || r.Workers != w.Workers || r.Goroutines != w.Goroutines ||
			r.IDs <= 0 || r.IDsPerSec <= 0 || r.IDs%r.Batch != 0 {
			t.Errorf("row %d: %+v, want the case %+v", i, r, w)
		}
		if r.Workers == 1 && r.Conflicts != 0 {
			t.Errorf("a lone worker met conflicts: %+v", r)
		}
		if r.Mode == "setdata" && (r.CASPerSec != r.IDsPerSec || r.Conflicts != 0) {
			t.Errorf("the ceiling: %+v; want a write per ID, and no conflicts", r)
		}
		if r.Mode != "setdata" && r.Goroutines > 1 && r.CASPerSec*float64(r.Batch) >= r.IDsPerSec {
			t.Errorf("8 goroutines of one worker did not share their writes: %.0f writes/s for %.0f IDs/s", r.CASPerSec, r.IDsPerSec)
		}
	}
	rz := zktest.Connect(t, servers, 4*time.Second)
	top, err := rz.Children(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range top {
		if strings.HasPrefix(name, "seqid-bench-") {
			t.Errorf("left behind: /%s", name)
		}
	}
}

// `seqid bench` with servers of its own stops them when it is stopped, by
// Ctrl-C, SIGTERM or SIGHUP (a closed terminal): it exits 0, and nothing
// answers at their addresses any more.
func TestBenchStopsItsOwnServersOnSIGHUP(t *testing.T) {
	t.Parallel()
	zktest.SkipShort(t)
	p := zktest.RunEnv(t, []string{"ZK_JAVA_OPTS=" + zktest.LightJVM}, bin, "bench", "--workers", "1", "--batch", "1", "--duration", "1m")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := p.WaitForStderr(ctx, "per row on "); err != nil {
		t.Fatalf("the bench's servers did not start: %v\n%s", err, p.Stderr())
	}
	line := p.Stderr()[strings.Index(p.Stderr(), "per row on ")+len("per row on "):]
	addrs := strings.Split(strings.Fields(line)[0], ",")
	p.Signal(syscall.SIGHUP)
	if code, err := p.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("after SIGHUP: exit %d, %v; want 0\n%s", code, err, p.Stderr())
	}
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", strings.TrimSuffix(a, ";"), time.Second); err == nil {
			c.Close()
			t.Errorf("a server still answers at %s after the bench ended", a)
		}
	}
}
