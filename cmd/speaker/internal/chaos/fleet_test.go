package chaos

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A fault may pick a speaker the instant another fault restarted it. A
// SIGTERM that reaches the new process before it has installed its handler
// kills it outright: a bad exit that is the soak's doing, not the
// speaker's. start returns only once the speaker has said it started, so
// the SIGTERM right after it is a graceful exit, status 0. No ZooKeeper is
// needed: the speaker starts, and exits, without one.
func TestASpeakerJustStartedExitsGracefullyOnSIGTERM(t *testing.T) {
	t.Parallel()
	cfg, sp := speakerWithoutZooKeeper(t)
	for range 3 {
		if err := sp.start(); err != nil {
			t.Fatal(err)
		}
		if e := sp.stop(syscall.SIGTERM, ExitLimit); e.Status != 0 || e.Signal != 0 {
			log, _ := os.ReadFile(filepath.Join(cfg.Dir, "logs", "s1.log"))
			t.Fatalf("SIGTERM right after start: %+v (%s)\nlog:\n%s", e, e.describe(), log)
		}
	}
}

// speakerWithoutZooKeeper is the speaker s1 of a soak, built and ready to
// start, whose proxies lead to a port where no ZooKeeper answers: it
// starts, and exits on SIGTERM, but makes no request that gets an answer.
func speakerWithoutZooKeeper(t *testing.T) (*Config, *speakerProc) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds and runs the speaker")
	}
	cfg := &Config{Recipe: election.Name, Speaker: builtSpeaker(t), Dir: t.TempDir(), Interval: 100 * time.Millisecond,
		Session: 2 * time.Second, Election: "sequential", Policy: "at-most-one", Fence: true}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp, err := newSpeakerProc(cfg, "s1", []string{"127.0.0.1:1"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.closeProxies)
	return cfg, sp
}

// Faults end out of order: a black hole that began first ends after a
// short freeze that began later. The progress lines still come in the
// order the faults began, each once it is over, and in the recipe's
// words: what a recipe of turns calls its leader is its holder.
func TestFaultLinesComeInTheOrderTheFaultsBegan(t *testing.T) {
	var b strings.Builder
	s := &soak{cfg: &Config{Recipe: turns.Name, Progress: &b}, began: t0}
	long, short := s.expectFault(), s.expectFault()
	s.record(short, faultAt(StopShort, "s2", 2*time.Second, 2500*time.Millisecond, true))
	if b.Len() > 0 {
		t.Errorf("a line printed while a fault that began before it still held:\n%s", b.String())
	}
	s.record(long, faultAt(HoleLong, "s1", time.Second, 5*time.Second, false))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "hole-long") || !strings.Contains(lines[1], "stop-short") {
		t.Fatalf("progress lines out of the order the faults began:\n%s", b.String())
	}
	if !strings.Contains(lines[1], "s2 (the holder)") || strings.Contains(b.String(), "leader") {
		t.Errorf("the lock's holder is not called the holder:\n%s", b.String())
	}
	if len(s.faults) != 2 {
		t.Errorf("%d faults recorded, want 2", len(s.faults))
	}
}

// A lost create restarts the process at once, with a trap on its
// proxies for the reply to its next create. Its note says so, and
// whether the trap sprang: never "restarted after 0s", which reads as a
// wait. Here no ZooKeeper answers, so no create is made and none is lost.
func TestALostCreateSaysItRestartedAtOnce(t *testing.T) {
	t.Parallel()
	cfg, sp := speakerWithoutZooKeeper(t)
	t.Cleanup(sp.halt)
	if err := sp.start(); err != nil {
		t.Fatal(err)
	}
	s := &soak{cfg: cfg}
	f := Fault{Kind: LostCreate, Target: "s1"}
	s.restartFault(context.Background(), planned{kind: LostCreate, speaker: sp, hold: 300 * time.Millisecond}, &f)
	if strings.Contains(f.Note, "after 0s") || !strings.Contains(f.Note, "restarted at once") ||
		!strings.Contains(f.Note, "no create") {
		t.Errorf("note %q: want it restarted at once, and that it made no create whose reply could be lost", f.Note)
	}
}
