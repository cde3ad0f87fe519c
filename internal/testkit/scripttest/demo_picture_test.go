package scripttest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// checkDemoPicture checks what make demo drew in timeline.svg: a label
// for each gap of its terms table, with the same length, and a mark for
// each fault it sent: the SIGTERM, the SIGKILL and the server killed.
func checkDemoPicture(t *testing.T, demo, output string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(demo, "timeline.svg"))
	if err != nil {
		t.Fatalf("no chart left for inspection: %v", err)
	}
	svg := string(data)
	label := func(class string) []string {
		var out []string
		re := regexp.MustCompile(`<text class="` + class + `"[^>]*><title>[^<]*</title>([^<]*)</text>`)
		for _, m := range re.FindAllStringSubmatch(svg, -1) {
			out = append(out, m[1])
		}
		return out
	}
	// A row of the terms table: TERM NAME FIRST LAST LINES COUNTERS GAP.
	row := regexp.MustCompile(`(?m)^\d+ +\S+ +\d\d:\d\d:\d\d\.\d{3} +\S+ +\d+ +\S+ +(\S+) *$`)
	gaps := 0
	for _, m := range row.FindAllStringSubmatch(output, -1) {
		if m[1] == "-" {
			continue
		}
		gaps++
		if !slices.Contains(label("gap-label"), "gap "+m[1]) {
			t.Errorf("the table has a gap of %s; the picture labels %q", m[1], label("gap-label"))
		}
	}
	if gaps < 2 {
		t.Errorf("%d gaps in the terms table, want two (after the SIGTERM and the SIGKILL):\n%s", gaps, output)
	}
	events := strings.Join(label("event-label"), "\n")
	for _, want := range []string{`(?m)^SIGTERM speaker-\d$`, `(?m)^SIGKILL speaker-\d$`, `(?m)^SIGKILL zk-server-\d$`} {
		if !regexp.MustCompile(want).MatchString(events) {
			t.Errorf("the picture marks no event like %s; it marks %q", want, label("event-label"))
		}
	}
}
