package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// A contender that gives another --leases than the path records is bad
// input, and so is a plain or --shared zklock on a semaphore's path (its
// znode would stand in none of the semaphore's lines): exit 2, the last
// line naming --leases and the numbers, and CMD never runs. The holder of
// a lease is untouched.
func TestDisagreeingLeasesIsBadInput(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	dir := t.TempDir()
	gate, marker := filepath.Join(dir, "gate"), filepath.Join(dir, "ran")
	holder := run(t, cluster.ConnString(), "--leases", "2", "--", "/bin/sh", "-c", "until [ -e "+gate+" ]; do sleep 0.02; done")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := holder.WaitForStderr(ctx, "holding the lock"); err != nil {
		t.Fatalf("%v\n%s", err, holder.Stderr())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--leases", "3"}, "zklock: --leases: 3, but "},
		{nil, "zklock: --leases: not given, but "},
		{[]string{"--shared"}, "zklock: --leases: not given, but "},
	} {
		p := run(t, cluster.ConnString(), append(tc.args, "--", "/bin/sh", "-c", "touch "+marker)...)
		code := wait(t, p, 10*time.Second)
		lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
		if last := lines[len(lines)-1]; code != 2 || !strings.HasPrefix(last, tc.want) || !strings.Contains(last, "admits 2 at once") {
			t.Fatalf("zklock %q: exit %d, last line %q; want exit 2 and one line starting %q, naming 2", tc.args, code, last, tc.want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a contender refused by the semaphore ran its CMD")
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := wait(t, holder, 10*time.Second); code != 0 {
		t.Fatalf("the lease's holder exited %d\n%s", code, holder.Stderr())
	}
}

// Three zklock --leases 2, each running its CMD three times: never three
// CMDs at once, and two at times. Each CMD writes its start and end to one
// file, with the time, and the test counts how many ran at every moment.
func TestThreeContendersWithTwoLeasesRunTwoCMDsAtMost(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	file := filepath.Join(t.TempDir(), "held.txt")
	cmd := fmt.Sprintf(`echo "start 0 $(date +%%s%%N)" >> %[1]s; sleep 0.2; echo "end 0 $(date +%%s%%N)" >> %[1]s`, file)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				p := run(t, cluster.ConnString(), "--leases", "2", "--", "/bin/sh", "-c", cmd)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				code, err := p.Wait(ctx) // not wait: no t.Fatal off the test's goroutine
				cancel()
				if err != nil || code != 0 {
					t.Errorf("zklock exited %d (%v)\n%s", code, err, p.Stderr())
				}
			}
		}()
	}
	wg.Wait()
	records := readRecords(t, file)
	slices.SortFunc(records, func(a, b record) int { return a.at.Compare(b.at) })
	running, most := 0, 0
	for _, r := range records {
		if r.what == "start" {
			running++
		} else {
			running--
		}
		most = max(most, running)
	}
	if len(records) != 18 || most != 2 {
		t.Fatalf("%d records, at most %d CMDs at once; want 18, and 2, never 3", len(records), most)
	}
}

// And the other way round: --leases on a path where a plain zklock holds
// is bad input, exit 2 with one line, and its CMD never runs beside the
// writer's.
func TestLeasesOnALocksPathIsBadInput(t *testing.T) {
	t.Parallel()
	cluster := zktest.Shared(t)
	dir := t.TempDir()
	gate, marker := filepath.Join(dir, "gate"), filepath.Join(dir, "ran")
	writer := run(t, cluster.ConnString(), "--", "/bin/sh", "-c", "until [ -e "+gate+" ]; do sleep 0.02; done")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := writer.WaitForStderr(ctx, "holding the lock"); err != nil {
		t.Fatalf("%v\n%s", err, writer.Stderr())
	}
	p := run(t, cluster.ConnString(), "--leases", "2", "--", "/bin/sh", "-c", "touch "+marker)
	code := wait(t, p, 10*time.Second)
	lines := strings.Split(strings.TrimSpace(p.Stderr()), "\n")
	want := "zklock: --leases: 2, but "
	if last := lines[len(lines)-1]; code != 2 || !strings.HasPrefix(last, want) || !strings.Contains(last, "is a lock") {
		t.Fatalf("zklock --leases 2 where a writer holds: exit %d, last line %q; want exit 2 and one line starting %q, saying the path is a lock", code, last, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a lease's CMD ran while the writer held the lock")
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := wait(t, writer, 10*time.Second); code != 0 {
		t.Fatalf("the writer exited %d\n%s", code, writer.Stderr())
	}
}
