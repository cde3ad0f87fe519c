package main_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
)

// bin is the seqid binary, built by TestMain; servers is a real standalone
// server for the tests that need no other.
var (
	bin     string
	servers []string
)

func TestMain(m *testing.M) { os.Exit(zktest.MainCommand(m, &servers, &bin)) }

// seqid runs the command to its end and returns its exit status and output.
func seqid(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := zktest.Run(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("seqid %v: %v", args, err)
	}
	return code, p.Stdout(), p.Stderr()
}

// mustSeqid runs the command and fails the test unless it exits 0.
func mustSeqid(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := seqid(t, args...)
	if code != 0 {
		t.Fatalf("seqid %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

// persister is one `seqid persist` process.
type persister struct {
	name string
	p    *zktest.Process
}

func startPersister(t *testing.T, conn, store, name string, extra ...string) *persister {
	t.Helper()
	return startPersisterEnv(t, nil, conn, store, name, extra...)
}

// startPersisterEnv is startPersister with env added to its environment.
func startPersisterEnv(t *testing.T, env []string, conn, store, name string, extra ...string) *persister {
	t.Helper()
	args := append([]string{"persist", "--servers", conn, "--store", store, "--name", name, "--session-timeout", "1s", "--log-level", "info"}, extra...)
	return &persister{name: name, p: zktest.RunEnv(t, env, bin, args...)}
}

// ranges collects the IDs handed out, as first and count, and checks them.
type ranges struct {
	mu  sync.Mutex
	got [][2]int64
}

func (r *ranges) add(first, k int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, [2]int64{first, k})
}

func (r *ranges) sorted() [][2]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := slices.Clone(r.got)
	slices.SortFunc(s, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	return s
}

// check asserts that no ID is in two ranges, and that between the ranges
// there is no hole wider than maxGap; it returns how many IDs there are.
func (r *ranges) check(t *testing.T, maxGap int64) (ids int64) {
	t.Helper()
	s := r.sorted()
	for i, g := range s {
		ids += g[1]
		if i == 0 {
			continue
		}
		end := s[i-1][0] + s[i-1][1]
		if g[0] < end {
			t.Fatalf("ID %d handed out twice (ranges %v and %v)", g[0], s[i-1], g)
		}
		if gap := g[0] - end; gap > maxGap {
			t.Errorf("a hole of %d IDs before %d (at most %d allowed)", gap, g[0], maxGap)
		}
	}
	return ids
}

// lines returns the stderr lines of p that contain msg, with their times.
func logLines(t *testing.T, stderr, msg string) []time.Time {
	t.Helper()
	var out []time.Time
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.Contains(l, msg) {
			continue
		}
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(f[0], "time=") {
			t.Fatalf("a log line without its time: %q", l)
		}
		at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(f[0], "time="))
		if err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, at)
	}
	return out
}

// server returns the shared server's address, and skips under -short,
// the one mode that runs unit tests alone.
func server(t *testing.T) string {
	t.Helper()
	zktest.SkipShort(t)
	return servers[0]
}
