package chaos

import (
	"os"
	"path/filepath"
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
	cfg := &Config{Speaker: buildSpeaker(t, false), Dir: t.TempDir(), Interval: 100 * time.Millisecond,
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
