package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/testkit/electiontest"
	"zkspeaker/internal/testkit/zktest"
)

// changes is how many changes the latency is measured over.
const changes = 120

// measureLatency changes the key n under base again and again, each time
// once the page shows the last change, and reads what the page measured
// for each: the time from zkview receiving ZooKeeper's notification to
// the page having drawn the change. It logs the median and the worst; the
// bound it holds them to is a second, the figure itself is for the reader.
func measureLatency(t *testing.T, p *page, base string) {
	t.Helper()
	rz := zktest.Connect(t, servers, 5*time.Second)
	ctx := context.Background()
	if err := rz.EnsurePath(ctx, base+"/n", zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	shown := func() string {
		return p.eval(`document.querySelector("#config [data-key=n]")?.dataset.version`)
	}
	p.await("the key", 5*time.Second, "0", shown)
	before := p.eval(`window.zkviewLatencies.length`)
	for i := 1; i <= changes; i++ {
		if _, err := rz.Set(ctx, base+"/n", []byte(strconv.Itoa(i)), -1); err != nil {
			t.Fatal(err)
		}
		p.await(fmt.Sprintf("version %d", i), time.Second+electiontest.Slack, strconv.Itoa(i), shown)
	}
	var all []float64
	if err := json.Unmarshal([]byte(p.eval(`JSON.stringify(window.zkviewLatencies.slice(`+before+`))`)), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) < changes {
		t.Fatalf("the page measured %d changes, want at least %d: %v", len(all), changes, all)
	}
	slices.Sort(all)
	median, worst := all[len(all)/2], all[len(all)-1]
	t.Logf("notification to page over %d changes: median %.1f ms, worst %.1f ms", len(all), median, worst)
	if worst >= 1000 {
		t.Errorf("a change reached the page %.0f ms after its notification, want under a second", worst)
	}
}
