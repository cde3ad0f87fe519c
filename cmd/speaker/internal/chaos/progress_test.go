package chaos

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Faults end out of order: a black hole that began first ends after a
// short freeze that began later. The progress lines still come in the
// order the faults began, each once it is over, and in the recipe's
// words: a lock's leader is its holder.
func TestFaultLinesComeInTheOrderTheFaultsBegan(t *testing.T) {
	var b strings.Builder
	s := &soak{cfg: &Config{Recipe: RecipeLock, Progress: &b}, began: t0}
	long, short := s.expectFault(), s.expectFault()
	s.record(short, fault(StopShort, "s2", 2*time.Second, 2500*time.Millisecond, true))
	if b.Len() > 0 {
		t.Errorf("a line printed while a fault that began before it still held:\n%s", b.String())
	}
	s.record(long, fault(HoleLong, "s1", time.Second, 5*time.Second, false))
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
