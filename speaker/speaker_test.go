package speaker

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var lineRE = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z) (\S+) (\d+)$`)

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
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("malformed line %q", sc.Text())
		}
		if _, err := time.Parse(time.RFC3339Nano, m[1]); err != nil {
			t.Fatalf("time %q is not RFC 3339: %v", m[1], err)
		}
		c, _ := strconv.ParseUint(m[3], 10, 64)
		names = append(names, m[2])
		counters = append(counters, c)
	}
	return names, counters
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
	s.StartSpeaking() // the interval is an hour: only an immediate write shows
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
		s.StartSpeaking()
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
			s.StartSpeaking()
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
	s.StartSpeaking()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	names, _ := readLines(t, path)
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
