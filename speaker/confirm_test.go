package speaker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestConfirmGatesEveryLineAndAddsTheEpoch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	s, err := New(path, WithName("c"), WithInterval(5*time.Millisecond), WithFsync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ok atomic.Bool
	var calls atomic.Int64
	s.StartSpeaking(func(ctx context.Context) (int64, time.Time, error) {
		calls.Add(1)
		if _, has := ctx.Deadline(); !has {
			t.Error("confirm called without a deadline")
		}
		if !ok.Load() {
			return 0, time.Now(), errors.New("session expired")
		}
		return 42, time.Now(), nil
	})
	time.Sleep(50 * time.Millisecond)
	if data, _ := os.ReadFile(path); len(data) != 0 || calls.Load() < 2 {
		t.Fatalf("unconfirmed leader wrote %q (%d confirms)", data, calls.Load())
	}
	ok.Store(true)
	time.Sleep(30 * time.Millisecond)
	s.StopSpeaking()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 2 {
		t.Fatalf("confirmed leader wrote %d lines", len(lines))
	}
	for i, line := range lines {
		l, err := ParseLine(line)
		if err != nil || l.Counter != uint64(i+1) || l.Epoch != 42 || !strings.HasSuffix(line, " epoch=42") {
			t.Fatalf("line %d = %q (%v), want counter %d and epoch=42", i+1, line, err, i+1)
		}
	}
}

func TestFenceRefusesAnOlderEpoch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	newer := "2026-11-22T10:00:00.000000000Z newer 7 epoch=100\n"
	if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		epoch int64
		write bool
	}{{99, false}, {100, true}, {101, true}} {
		lf, err := openLineFile(path, false)
		if err != nil {
			t.Fatal(err)
		}
		err = lf.Append(Line{Time: time.Now(), Name: "old", Counter: 1, Epoch: tc.epoch}, true, time.Second)
		lf.Close()
		if tc.write != (err == nil) || (!tc.write && !errors.Is(err, errFenced)) {
			t.Fatalf("epoch %d after 100: Append = %v, want written=%v", tc.epoch, err, tc.write)
		}
		// Restore the file so each case sees epoch 100 last.
		if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Without an epoch anywhere in the file, anyone may write.
	plain := filepath.Join(t.TempDir(), "plain.txt")
	if err := os.WriteFile(plain, []byte("2026-11-22T10:00:00.000000000Z a 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lf, _ := openLineFile(plain, false)
	defer lf.Close()
	if err := lf.Append(Line{Time: time.Now(), Name: "b", Counter: 1, Epoch: 1}, true, time.Second); err != nil {
		t.Fatalf("fenced append to a file without epochs: %v", err)
	}
}

// A process paused after its confirm came back (SIGSTOP, a GC pause) must
// not act on that old answer when it wakes: leadership may have moved.
func TestAStaleConfirmWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	s, err := New(path, WithName("c"), WithInterval(20*time.Millisecond), WithFsync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var calls atomic.Int64
	s.StartSpeaking(func(context.Context) (int64, time.Time, error) {
		calls.Add(1)
		sent := time.Now()
		time.Sleep(30 * time.Millisecond) // "yes", but it arrives after a pause longer than the deadline
		return 42, sent, nil
	})
	time.Sleep(150 * time.Millisecond)
	s.StopSpeaking()
	if data, _ := os.ReadFile(path); len(data) != 0 || calls.Load() < 2 {
		t.Fatalf("wrote %q on stale confirms (%d confirms)", data, calls.Load())
	}
}

// The first confirm of a term may answer at once with the proof the
// election got: the line is then as fresh as that proof's
// request, and a proof older than the confirm deadline must write nothing,
// however fast it is handed over.
func TestAnOldProofHandedOverAtOnceWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	s, err := New(path, WithName("c"), WithInterval(20*time.Millisecond), WithFsync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	proved := time.Now().Add(-30 * time.Millisecond) // older than the 10 ms deadline
	var calls atomic.Int64
	s.StartSpeaking(func(context.Context) (int64, time.Time, error) {
		calls.Add(1)
		return 42, proved, nil
	})
	time.Sleep(100 * time.Millisecond)
	s.StopSpeaking()
	if data, _ := os.ReadFile(path); len(data) != 0 || calls.Load() < 2 {
		t.Fatalf("wrote %q on a proof older than the deadline (%d confirms)", data, calls.Load())
	}
}

// A speaker whose epoch is older than one already in the file is fenced off:
// it writes nothing more in that term, and says so once, not every tick.
func TestAFencedSpeakerStopsAndSaysSoOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	newer := "2026-11-22T10:00:00.000000000Z newer 7 epoch=100\n"
	if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	s, err := New(path, WithName("old"), WithInterval(5*time.Millisecond), WithFsync(false), WithFence(true),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var calls atomic.Int64
	s.StartSpeaking(func(context.Context) (int64, time.Time, error) { calls.Add(1); return 99, time.Now(), nil })
	time.Sleep(60 * time.Millisecond) // a dozen ticks
	s.StopSpeaking()
	if data, _ := os.ReadFile(path); string(data) != newer {
		t.Fatalf("a fenced speaker wrote: %q", data)
	}
	if n := strings.Count(logs.String(), "fenced:"); n != 1 {
		t.Fatalf("the fence was reported %d times, want once:\n%s", n, logs.String())
	}
	if calls.Load() != 1 {
		t.Fatalf("confirm called %d times after the fence, want 1: the term is over", calls.Load())
	}
	// Elected anew with a newer epoch, it writes again, after the newer line.
	s.StartSpeaking(func(context.Context) (int64, time.Time, error) { return 101, time.Now(), nil })
	waitCounter(t, s, 1)
	s.StopSpeaking()
	data, _ := os.ReadFile(path)
	lines := strings.Split(string(data), "\n")
	if !strings.HasPrefix(string(data), newer) || len(lines) < 3 || !strings.HasSuffix(lines[1], " old 1 epoch=101") {
		t.Fatalf("after a new election: %q, want the newer line, then old's from counter 1 with epoch 101", data)
	}
}

// syncBuffer is a bytes.Buffer that a logger and a test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A writer frozen while it holds the fence's lock must not stall the next
// one for as long as the freeze lasts: the lock is waited for a bounded time.
func TestFenceLockWaitIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	holder, err := openLineFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := holder.lock(time.Second); err != nil {
		t.Fatal(err)
	}
	other, err := openLineFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	start := time.Now()
	err = other.Append(Line{Time: time.Now(), Name: "b", Counter: 1, Epoch: 2}, true, 50*time.Millisecond)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("Append under another writer's lock = %v after %v, want an error after about 50ms", err, time.Since(start))
	}
}
