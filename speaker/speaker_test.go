package speaker

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// readLines parses every line of path, failing the test on any line that is
// not "<time> <name> <counter>".
func readLines(t *testing.T, path string) (names []string, counters []uint64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l, err := ParseLine(sc.Text())
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Extra) != 0 || len(strings.Split(sc.Text(), " ")[0]) != len("2006-01-02T15:04:05.000000000Z") {
			t.Fatalf("line %q is not exactly <time with 9 digits> <name> <counter>", sc.Text())
		}
		names = append(names, l.Name)
		counters = append(counters, l.Counter)
	}
	return names, counters
}

func TestParseLineRejectsTornLines(t *testing.T) {
	good := "2026-11-22T10:59:11.123456789Z 4242 17 epoch=9"
	l, err := ParseLine(good)
	if err != nil || l.Name != "4242" || l.Counter != 17 || l.Epoch != 9 || len(l.Extra) != 0 || l.Time.Nanosecond() != 123456789 {
		t.Fatalf("ParseLine(%q) = %+v, %v", good, l, err)
	}
	if l.String() != good {
		t.Fatalf("the line built again reads %q, want %q", l.String(), good)
	}
	for _, bad := range []string{"", "2026-11-22T10:59:11.123456789Z 4242", "2026-11-22T10:59:11.1234 4242 1",
		"2026-11-22T10:59:11.123456789Z 4242 x", "2026-11-22T10:59:11.123456789Z 4242 0",
		"2026-11-22T10:59:11.123456789Z 4242 1 epoch=x", "2026-11-22T10:59:11.123456789Z 4242 1 2026-11-22T10:59:11.123456789Z", "2026-11-22T10:592026-11-22T10:59:11.123456789Z 1 2"} {
		if _, err := ParseLine(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseLine(%q) = %v, want ErrMalformed", bad, err)
		}
	}
}

// waitCounter waits, at most 5 s, until s has written line n.
func waitCounter(t *testing.T, s *Speaker, n uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Wait(ctx, n); err != nil {
		t.Fatalf("line %d was not written: %v (counter %d)", n, err, s.Counter())
	}
}

func TestSpeakerIsSilentUntilStartAndWritesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.txt")
	s, err := New(path, WithName("alpha"), WithInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Fatalf("before StartSpeaking: stat = %v, %v; want an empty file", fi, err)
	}
	s.StartSpeaking(nil) // the interval is an hour: only an immediate write shows
	waitCounter(t, s, 1)
	names, counters := readLines(t, path)
	if len(names) != 1 || names[0] != "alpha" || counters[0] != 1 {
		t.Fatalf("after StartSpeaking: names=%v counters=%v, want one line 'alpha 1'", names, counters)
	}
	if !s.Speaking() {
		t.Fatal("Speaking() = false after StartSpeaking")
	}
}

func TestSpeakerCountsAcrossTermsAndStopIsSynchronous(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	s, err := New(path, WithName("beta"), WithInterval(5*time.Millisecond), WithFsync(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for term := 0; term < 3; term++ {
		s.StartSpeaking(nil)
		time.Sleep(30 * time.Millisecond)
		s.StopSpeaking()
		stopped := s.Counter()
		_, counters := readLines(t, path)
		if uint64(len(counters)) != stopped {
			t.Fatalf("term %d: file has %d lines, counter says %d", term, len(counters), stopped)
		}
		time.Sleep(20 * time.Millisecond) // four ticks: none may write
		if _, after := readLines(t, path); len(after) != len(counters) {
			t.Fatalf("term %d: %d lines written after StopSpeaking returned", term, len(after)-len(counters))
		}
	}
	_, counters := readLines(t, path)
	for i, c := range counters {
		if c != uint64(i+1) {
			t.Fatalf("line %d has counter %d, want %d: %v", i+1, c, i+1, counters)
		}
	}
	if len(counters) < 6 {
		t.Fatalf("only %d lines in three terms", len(counters))
	}
}

func TestSpeakersSharingAFileNeverTearLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		s, err := New(path, WithName("writer-"+strconv.Itoa(i)+strings.Repeat("x", 200)), WithInterval(time.Millisecond), WithFsync(false))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.StartSpeaking(nil)
			time.Sleep(100 * time.Millisecond)
			s.Close()
		}()
	}
	wg.Wait()
	names, counters := readLines(t, path) // fails on any torn line
	next := map[string]uint64{}
	for i, n := range names {
		next[n]++
		if counters[i] != next[n] {
			t.Fatalf("%s: counter %d after %d", n[:8], counters[i], next[n]-1)
		}
	}
	if len(next) != 4 {
		t.Fatalf("saw %d writers, want 4", len(next))
	}
}

func TestCloseIsIdempotentAndStopsWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	s, err := New(path, WithInterval(time.Millisecond), WithFsync(false))
	if err != nil {
		t.Fatal(err)
	}
	s.StartSpeaking(nil)
	waitCounter(t, s, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	names, _ := readLines(t, path)
	// A monitor that wins the election while the process shuts down calls
	// StartSpeaking after Close: nothing may be written.
	s.StartSpeaking(nil)
	if s.Speaking() {
		t.Error("StartSpeaking after Close made the Speaker active")
	}
	time.Sleep(10 * time.Millisecond)
	if again, _ := readLines(t, path); len(again) != len(names) {
		t.Fatal("lines written after Close")
	}
	if names[0] != strconv.Itoa(os.Getpid()) {
		t.Fatalf("default name = %q, want the pid", names[0])
	}
}

func TestBadOptionsAreRefusedBeforeTheFileIsCreated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	for _, opt := range []Option{WithName("two words"), WithName("tab\there"), WithName(""), WithName("bell\a"), WithInterval(0), WithInterval(-time.Second)} {
		if s, err := New(path, opt); err == nil {
			s.Close()
			t.Fatal("New accepted a bad option")
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a refused Speaker created its file: %v", err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(filepath.Join(plain, "out.txt")); err == nil {
		t.Fatal("Check accepted a path whose directory is a regular file")
	}
}

// A path that cannot be an out file fails the check and leaves nothing
// behind, not even the folders made to find out; a good one gets its folder.
func TestCheckCreatesNothingWhenItFails(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{dir + "/a/b/", dir + "/new/..", dir + "/c/" + strings.Repeat("x", 300)} {
		if err := Check(bad); err == nil {
			t.Errorf("Check(%q) passed", bad)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("Check(%q) left %v", bad, entries)
		}
	}
	good := filepath.Join(dir, "d", "out.txt")
	if err := Check(good); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(good); err != nil {
		t.Fatalf("Check(%q): %v", good, err)
	}
}
