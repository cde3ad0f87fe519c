package config

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
	"zkspeaker/speaker"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// A seeded soak of the configuration service: updaters writing ever higher
// values, each key with a watcher. A watcher's values never go back, no
// acknowledged write is lost, and every watcher ends on its key's value.
func TestConfigSoak(t *testing.T) {
	t.Parallel()
	chaostest.MustPass(t, chaos.Config{Recipe: Name, Seed: 9, Duration: 12 * time.Second, Speakers: 2, Servers: 1,
		Speaker: chaostest.Build(t, nil, "zkconfig")}, func(rep chaos.Report) string {
		if rep.Lines < 10 {
			return fmt.Sprintf("%d values seen by the watchers, want at least 10", rep.Lines)
		}
		return ""
	})
}

// The config checker catches a zkconfig built broken, whose
// watcher does not read again after its session expired: its watch is
// gone, and it never hears of the later writes.
func TestConfigSoakCatchesABrokenWatcher(t *testing.T) {
	t.Parallel()
	chaostest.MustFail(t, chaos.Config{Recipe: Name, Seed: 3, Duration: 10 * time.Second, Speakers: 2, Servers: 1, Kinds: []chaos.Kind{chaos.HoleLong},
		Speaker: chaostest.Build(t, sabotage.Config, "zkconfig")}, "stale watchers", func(rep chaos.Report) int { return len(rep.Found("stale watchers")) })
}

// The config checks: a value going back is a finding unless the older
// value's set never learned its outcome (then it landed late: explained);
// a key below its last acknowledged value is a lost write, unless it holds
// such a value; a watcher not ending on its key's value is stale.
func TestConfigChecks(t *testing.T) {
	in := &Record{
		Values: map[string][]watched{
			"v1": {{At: chaostest.TS(0), Life: 1, Value: 3}, {At: chaostest.TS(chaostest.Step), Life: 1, Value: 2}, {At: chaostest.TS(2 * chaostest.Step), Life: 1, Value: 5}},
			"v2": {{At: chaostest.TS(0), Life: 1, Value: 4}, {At: chaostest.TS(chaostest.Step), Life: 1, Value: 3}},
			"v3": {{At: chaostest.TS(0), Life: 1, Value: 8}},
		},
		Acked:  map[string]int64{"u1": 6, "u2": 4, "u3": 9},
		Unsure: map[string]map[int64]bool{"u1": {5: true}, "u2": {}, "u3": {}},
		Final:  map[string]int64{"u1": 5, "u2": 3, "u3": 9},
	}
	back, lost, late, stale := checkConfig(in)
	if len(back) != 2 || !strings.Contains(back[0].Detail+back[1].Detail, "v1 saw u1 go back from 3 to 2") {
		t.Errorf("went back %+v, want v1's 3 to 2 and v2's 4 to 3", back)
	}
	if len(lost) != 1 || !strings.Contains(lost[0].Detail, "u2 holds 3") {
		t.Errorf("lost %+v, want u2's", lost)
	}
	if len(late) != 1 || !strings.Contains(late[0].Detail, "u1 holds 5 after 6 was acknowledged") {
		t.Errorf("late %+v, want u1's 5 over 6", late)
	}
	if len(stale) != 1 || stale[0].Detail != "v3's last value of u3 is 8; the key holds 9" {
		t.Errorf("stale %+v, want v3's", stale)
	}
}

// A config soak is reported in its words: a key's updater and watcher;
// never a leader, handovers or terms.
func TestReportSpeaksTheRecipesWords(t *testing.T) {
	// v1 prints u1's values every 500 ms; u1 is frozen from 1.1 s
	// to 1.4 s, and v1 prints again at 1.5 s.
	o := &chaostest.OutFile{}
	for i := range 6 {
		at := time.Duration(i) * 500 * time.Millisecond
		o.Entries = append(o.Entries, chaostest.Entry{T: chaostest.TS(at), Line: speaker.Line{Time: chaostest.TS(at), Name: "v1", Counter: uint64(i + 1), Extra: []string{"value=" + strconv.Itoa(i+1)}}})
	}
	in := chaostest.Input(o, 3*time.Second, chaostest.Fault(chaos.StopShort, "u1", 1100*time.Millisecond, 1400*time.Millisecond, false))
	in.Fence = false
	in.Record = &Record{Values: map[string][]watched{"v1": {{At: chaostest.TS(0), Life: 1, Value: 6}}}, Acked: map[string]int64{"u1": 6},
		Final: map[string]int64{"u1": 6}, Unsure: map[string]map[int64]bool{"u1": {}}, Tried: map[string]int{"u1": 6}}
	in.Recipe = Name
	chaostest.SpeaksItsWords(t, in,
		[]string{"values seen by the watchers 6 (v1), writes tried 6, acknowledged 6\n", "its key's watcher", "leaks: not looked for"},
		[]string{"stop-short 1 1 400ms 400ms 400ms 0"},
		[]string{"leader", "handover", "terms", "speaker", "writers", "epoch"})
}
