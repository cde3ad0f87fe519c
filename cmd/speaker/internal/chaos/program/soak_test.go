package program

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/cmd/speaker/internal/chaos/chaostest"
	"zkspeaker/internal/testkit/sabotage"
)

// TestMain registers the recipe, and fails the package when its tests
// leave a goroutine running.
func TestMain(m *testing.M) { chaostest.Main(m, Recipe) }

// This project's speaker, run through a template as anyone's program is,
// passes a soak of every kind of fault under at-most-one: the contract
// the soak holds a program to is one the speaker meets. Told {path}, it
// is drawn the operator's deletes too, which find its znodes by their
// sequence numbers.
//
// Its speakers write every 200 ms, faster than the contract's pace: the
// soak aims a fault at the leader by the last line's name, and at one
// line a second that name was a dead leader's for most of a handover, so
// a run could end with every fault on a follower and one writer only.
func TestSoakRunsTheSpeakerThroughATemplate(t *testing.T) {
	t.Parallel()
	speaker := chaostest.Build(t, nil)
	cmd := fmt.Sprintf("'%s' --servers {servers} --name {name} --out {out} --path {path} --session-timeout {session} --interval 200ms", speaker)
	cfg := chaos.Config{Recipe: Name, Cmd: cmd, Seed: 12, Duration: 14 * time.Second, Speakers: 3, Policy: "at-most-one",
		Servers: 1, Speaker: speaker}
	chaostest.MustPass(t, cfg, func(rep chaos.Report) string {
		faults := 0
		for _, k := range rep.Kinds {
			faults += k.N
		}
		switch {
		case faults < 5:
			return fmt.Sprintf("%d faults in %v, want at least 5", faults, cfg.Duration)
		case rep.Cmd != cmd || rep.Blind != "":
			return fmt.Sprintf("the report names %q and is blind for %q; want %q, and the znodes found", rep.Cmd, rep.Blind, cmd)
		case len(rep.Writers) < 2:
			return fmt.Sprintf("writers %v: no handover was tested", rep.Writers)
		}
		return ""
	})
}

// A student's speaker that writes its first line before it checks that
// it is first in line (testdata/eagerspeaker) fails, with each overlap
// named and unexplained. Not told {path}, it is drawn none of the faults
// aimed at znodes, and the report says so.
func TestSoakFailsASpeakerThatWritesBeforeItChecks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the soak runs real ZooKeeper servers")
	}
	dir, err := sabotage.Built(nil, "zkspeaker/cmd/speaker/internal/chaos/program/testdata/eagerspeaker")
	if err != nil {
		t.Fatal(err)
	}
	cmd := fmt.Sprintf("'%s' --zk {servers} --name {name} --out {out} --session {session}", filepath.Join(dir, "eagerspeaker"))
	cfg := chaos.Config{Recipe: Name, Cmd: cmd, Seed: 3, Duration: 6 * time.Second, Speakers: 3, Policy: "at-most-one",
		Servers: 1, Speaker: chaostest.Build(t, nil)}
	rep, summary := chaostest.RunSoak(t, cfg)
	t.Logf("summary:\n%s", summary)
	if rep.Pass() || chaostest.Unexplained(rep) == 0 || !slices.Contains(rep.Failures(), "unexplained overlaps") {
		t.Errorf("the eager speaker passed, or failed for something else (%v): the checker cannot catch a write before the check", rep.Failures())
	}
	if !strings.Contains(summary, "UNEXPLAINED: ") || !strings.Contains(summary, "left out: delete-leader, delete-path, lost-create") {
		t.Errorf("the summary does not name the overlaps, or what it left out")
	}
	for _, k := range rep.Kinds {
		if slices.Contains(chaos.Blind, k.Kind) && k.N > 0 {
			t.Errorf("%d %v drawn for a program whose znodes the soak cannot find", k.N, k.Kind)
		}
	}
}

// A student's speaker that never watches (testdata/pollingspeaker): a
// follower looks at the line every 5 s, and a leader reads it again before
// each line. It is slow, not wrong: declaring its poll as its pace, it
// passes, and the report shows handovers longer than a watching program's
// bound, and the pace that allowed them.
func TestSoakPassesASpeakerThatPolls(t *testing.T) {
	t.Parallel()
	speaker := chaostest.Build(t, nil)
	dir, err := sabotage.Built(nil, "zkspeaker/cmd/speaker/internal/chaos/program/testdata/pollingspeaker")
	if err != nil {
		t.Fatal(err)
	}
	const poll = 5 * time.Second
	cmd := fmt.Sprintf("'%s' --zk {servers} --name {name} --out {out} --path {path} --session {session} --poll %v",
		filepath.Join(dir, "pollingspeaker"), poll)
	cfg := chaos.Config{Recipe: Name, Cmd: cmd, Seed: 4, Duration: 16 * time.Second, Speakers: 3, Policy: "at-most-one",
		Servers: 1, Speaker: speaker, Interval: poll}
	chaostest.MustPass(t, cfg, func(rep chaos.Report) string {
		watcher := chaos.DefaultSession + chaos.DefaultTick + Pace + chaos.Slack
		longest := time.Duration(0)
		for _, k := range rep.Kinds {
			longest = max(longest, k.Handover.Max)
		}
		switch {
		case longest <= watcher:
			return fmt.Sprintf("the longest handover took %v, no longer than a watching program may (%v): the poll was not tested", longest, watcher)
		case !strings.Contains(rep.Summary, "pace 5s, as the program declared"):
			return fmt.Sprintf("the summary does not say the declared pace: %q", rep.Summary)
		}
		return ""
	})
}
