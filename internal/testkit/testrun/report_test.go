package main

import (
	"strings"
	"testing"
)

// A failed test's own lines (file_test.go:NN: ...) can sit above pages of
// server log printed by its cleanups; CI shows only the tail, so the
// summary's end repeats them.
func TestSummaryEndsWithWhyEachTestFailed(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	out.WriteString("=== RUN   TestBenchCounts\n")
	out.WriteString("    bench_cmd_test.go:141: sequential/predecessor/exit: requests 4, want 3\n")
	out.WriteString("        and a second line of the same message\n")
	for i := 0; i < 200; i++ {
		out.WriteString("    zookeeper log: WARN something\n")
	}
	out.WriteString("--- FAIL: TestBenchCounts (15.87s)\n")
	r := &result{pkg: "m/cmd/speaker", failed: []string{"TestBenchCounts"}, output: map[string]*strings.Builder{"TestBenchCounts": &out}}
	ok := &result{pkg: "m/a", passed: true}
	var w strings.Builder
	printSummary(&w, []*result{r, ok}, 0, 5)
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	tail := strings.Join(lines[max(0, len(lines)-8):], "\n")
	for _, want := range []string{"cmd/speaker TestBenchCounts", "bench_cmd_test.go:141: sequential/predecessor/exit: requests 4, want 3", "and a second line"} {
		if !strings.Contains(tail, want) {
			t.Errorf("the summary's last lines lack %q:\n%s", want, tail)
		}
	}
	if strings.Contains(tail, "zookeeper log") {
		t.Errorf("the summary repeats the logs, not the failure:\n%s", tail)
	}
	w.Reset()
	printSummary(&w, []*result{ok}, 0, 5)
	if strings.Contains(w.String(), "why") {
		t.Errorf("a passing run explains a failure:\n%s", w.String())
	}
}
