package timeline_test

import (
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/timeline"
)

func TestReadEvents(t *testing.T) {
	in := `# written by demo.sh
2026-11-22T10:00:18.6Z SIGKILL speaker-2 the new leader

2026-11-22T10:00:13.400123456Z SIGTERM speaker-1
`
	events, err := timeline.ReadEvents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []timeline.Event{
		{Time: time.Date(2026, 11, 22, 10, 0, 13, 400123456, time.UTC), Kind: "SIGTERM", Target: "speaker-1"},
		{Time: time.Date(2026, 11, 22, 10, 0, 18, 600000000, time.UTC), Kind: "SIGKILL", Target: "speaker-2", Note: "the new leader"},
	}
	if len(events) != len(want) {
		t.Fatalf("events %+v, want %+v", events, want)
	}
	for i := range want {
		if !events[i].Time.Equal(want[i].Time) || events[i].Kind != want[i].Kind || events[i].Target != want[i].Target || events[i].Note != want[i].Note {
			t.Errorf("event %d = %+v, want %+v (sorted by time)", i+1, events[i], want[i])
		}
	}
	if events[1].Label() != "SIGKILL speaker-2" {
		t.Errorf("label %q", events[1].Label())
	}
}

func TestReadEventsRefusesWhatDoesNotParse(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-22T10:00:18Z SIGKILL\n":                  "line 1: ",
		"# ok\nyesterday SIGKILL speaker-2\n":             "line 2: \"yesterday\" is not an RFC 3339 time",
		"2026-11-22 10:00:18 SIGKILL speaker-2\n":         "line 1: ",
		strings.Repeat("2026-11-22T10:00:18Z a b\n", 201): "line 201: more than 200 events",
	} {
		_, err := timeline.ReadEvents(strings.NewReader(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadEvents(%.40q) = %v, want an error starting %q", in, err, want)
		}
	}
}
