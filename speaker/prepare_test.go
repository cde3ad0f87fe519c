package speaker

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// locked reports whether a file lock is held on path, as another speaker
// process would find it. It looks in /proc/locks rather than trying the
// lock itself: a probe that took the lock for a moment would make the
// Speaker's one try in Prepare fail now and then, and the Speaker leaves
// a lock it finds taken to its line's own fence.
func locked(t *testing.T, path string) bool {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := st.Sys().(*syscall.Stat_t).Ino
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	// "1: FLOCK  ADVISORY  WRITE 19697 fe:00:9986096 0 EOF": the sixth
	// field is major:minor:inode.
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "FLOCK" && strings.HasSuffix(f[5], ":"+strconv.FormatUint(ino, 10)) {
			return true
		}
	}
	return false
}

// goroutineActs bounds the wait for the Speaker's goroutine to take or let
// go of the lock: it only has to be scheduled, which can take long on a
// loaded machine (CI runs -race beside ZooKeeper servers). The bounds that
// are the point of a test (Unprepare's quick release, the deadline) stay
// tight.
const goroutineActs = 5 * time.Second

// waitLocked waits until the lock on path is held (want) or free.
func waitLocked(t *testing.T, path string, want bool, within time.Duration, what string) {
	t.Helper()
	for deadline := time.Now().Add(within); locked(t, path) != want; {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the file lock is still %v after %v", what, !want, within)
		}
		time.Sleep(time.Millisecond)
	}
}

// proof is a confirm that answers at once, as the election's own proof does.
func proof(epoch int64) func(context.Context) (int64, time.Time, error) {
	return func(context.Context) (int64, time.Time, error) { return epoch, time.Now(), nil }
}

// A follower told that it may lead takes the fence's lock at once; told
// that it does not, or left without a term for the confirm deadline, it
// lets go, so that the leader is never kept waiting for long.
func TestPrepareHoldsTheLockUntilUnprepareOrTheDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	// A confirm deadline of a second (the most there is), far longer than
	// Unprepare may take.
	s, err := New(path, WithName("next"), WithInterval(10*time.Second), WithFsync(false), WithFence(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Prepare()
	waitLocked(t, path, true, goroutineActs, "after Prepare")
	s.Unprepare()
	waitLocked(t, path, false, 300*time.Millisecond, "after Unprepare")

	s.Prepare()
	waitLocked(t, path, true, goroutineActs, "after a second Prepare")
	held := time.Now()
	waitLocked(t, path, false, 3*time.Second, "with no term and no Unprepare")
	if d := time.Since(held); d < s.confirmDeadline()/2 {
		t.Fatalf("an unused lock was let go after %v, before the confirm deadline of %v", d, s.confirmDeadline())
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Fatalf("a speaker that never led wrote %q", data)
	}

	// Without the fence there is no lock to take.
	plainPath := filepath.Join(t.TempDir(), "plain.txt")
	plain, err := New(plainPath, WithName("plain"), WithFsync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	plain.Prepare()
	time.Sleep(20 * time.Millisecond)
	if locked(t, plainPath) {
		t.Fatal("a speaker without --fence took the file lock")
	}
}

// The first line after Prepare is checked against the epoch read when the
// lock was taken, and the lock was never let go in between: an older epoch
// is still refused, a newer one is written, and the lock is free after.
func TestAPreparedLineIsFencedAsAnyOther(t *testing.T) {
	for _, tc := range []struct {
		epoch int64
		write bool
	}{{99, false}, {101, true}} {
		path := filepath.Join(t.TempDir(), "out.txt")
		newer := "2026-11-22T10:00:00.000000000Z newer 7 epoch=100\n"
		if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := New(path, WithName("next"), WithInterval(time.Hour), WithFsync(false), WithFence(true), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		if err != nil {
			t.Fatal(err)
		}
		s.Prepare()
		waitLocked(t, path, true, goroutineActs, "after Prepare")
		s.StartSpeaking(proof(tc.epoch))
		waitLocked(t, path, false, goroutineActs, "after the first line")
		if tc.write {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			if err := s.Wait(ctx, 1); err != nil {
				t.Fatalf("epoch %d after 100: no line: %v", tc.epoch, err)
			}
			cancel()
		}
		s.Close()
		data, _ := os.ReadFile(path)
		wrote := strings.Contains(string(data), " next 1 ")
		if wrote != tc.write {
			t.Fatalf("epoch %d after 100: file %q, want written=%v", tc.epoch, data, tc.write)
		}
	}
}
