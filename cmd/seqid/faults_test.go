package main_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"zkspeaker/internal/testkit/zktest"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/sequence"
	"zkspeaker/recoverable"
)

// workers runs n workers, each on a session of its own, taking batches of
// 1, 5 or 9 IDs of name until stop is closed, into got.
func workers(t *testing.T, servers []string, name string, n int, got *ranges, stop <-chan struct{}) (wait func()) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range n {
		seq, err := sequence.Open(zktest.Connect(t, servers, 4*time.Second), name)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := int64(1 + w%3*4)
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				first, err := seq.NextN(ctx, k)
				cancel()
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				got.add(first, k)
				// Paced, not flat out: the point is IDs handed out across
				// every kill, and a worker loop at full speed would load the
				// machine that the other packages' fault tests time.
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	return wg.Wait
}

// leader returns the name of the persistence process first in line now,
// one of alive's: a process killed by SIGKILL stays first until its session
// expires, which a loaded machine may take a while to notice.
func leader(t *testing.T, rz *recoverable.RecoverableZookeeper, alive func(name string) bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := ""
	for ctx.Err() == nil {
		v, _, err := nodemonitor.Inspect(ctx, rz, sequence.DefaultElection)
		if err == nil && len(v.Seats) > 0 {
			if first = v.Seats[0].Data; alive(first) {
				return first
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no live persistence process is first in line (first: %q)", first)
	return ""
}

// Eight workers take IDs of a counter for 20 seconds on a 3-server
// ensemble while the persistence leader is killed again and again, by
// SIGKILL and SIGTERM, and a backup takes over each time. Every ID is
// handed out once, and the holes are only the versions burnt at the limit
// while no leader raised it: each worker burns one batch at most before it
// waits, so no hole is wider than the eight workers' batches together.
// (The compare-and-set mode has its soak under faults in speaker chaos,
// and its kills in the recipe's tests.) Then ZooKeeper loses everything: every server
// is stopped and its data wiped, and the ensemble starts afresh. `seqid
// restore` puts the sequence back at its stored reservation, the
// persistence processes find their way back (with new clients), and fresh
// workers go on: no ID handed out after the loss equals one before it.
func TestKilledLeadersThenTotalLoss(t *testing.T) {
	t.Parallel()
	cluster := zktest.Start(t, 3)
	conn := cluster.ConnString()
	store := t.TempDir()
	mustSeqid(t, "create", "--servers", conn, "--start", "1", "--mode", "counter", "ids")
	live := map[string]*persister{}
	started := 0
	spawn := func() {
		started++
		name := fmt.Sprintf("p%d", started)
		live[name] = startPersister(t, conn, store, name, "--block", "100")
	}
	for range 3 {
		spawn()
	}
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)

	var before ranges
	stop := make(chan struct{})
	wait := workers(t, cluster.Servers(), "ids", 8, &before, stop)
	// Three leaders killed each way, one every 2 s: a successor leads
	// within a session's worth of a kill, and the workers draw from it.
	kills := map[string]int{}
	for i := 0; i < 6; i++ {
		time.Sleep(2 * time.Second)
		name := leader(t, admin, func(name string) bool { return live[name] != nil })
		p := live[name]
		sig := []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM}[i%2]
		p.p.Signal(sig)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, err := p.p.Wait(ctx)
		cancel()
		if err != nil || sig == syscall.SIGTERM && code != 0 {
			t.Fatalf("%s after %s: exit %d, %v", name, zktest.SignalName(sig), code, err)
		}
		delete(live, name)
		kills[zktest.SignalName(sig)]++
		spawn()
	}
	close(stop)
	wait()
	const burnt = 1 + 5 + 9 + 1 + 5 + 9 + 1 + 5 // each worker's batch, burnt once at the limit
	ids := before.check(t, burnt)
	if kills["SIGKILL"] < 3 || kills["SIGTERM"] < 3 || ids < 300 {
		t.Fatalf("too little happened: %v kills, %d IDs", kills, ids)
	}
	t.Logf("before the loss: %d IDs, leaders killed: %v", ids, kills)

	// ZooKeeper loses everything.
	for i := range 3 {
		cluster.Stop(i)
	}
	for i := range 3 {
		cluster.Wipe(i)
	}
	cluster.StartMany(0, 1, 2)
	for i := range 3 {
		cluster.WaitServing(i)
	}
	if code, out, _ := seqid(t, "list", "--servers", conn); code != 0 || !strings.Contains(out, "no sequences") {
		t.Fatalf("after the wipe, list: exit %d, %q", code, out)
	}
	out := mustSeqid(t, "restore", "--servers", conn, "--store", store)
	if !strings.HasPrefix(out, "ids: created at ") {
		t.Fatalf("restore printed %q", out)
	}
	if f := strings.Fields(mustSeqid(t, "list", "--servers", conn)); len(f) != 10 || f[6] != "counter" {
		t.Fatalf("restored: list printed %q; want ids, a counter still", f)
	}

	var after ranges
	stop = make(chan struct{})
	wait = workers(t, cluster.Servers(), "ids", 8, &after, stop)
	time.Sleep(3 * time.Second)
	close(stop)
	wait()
	n := after.check(t, burnt)
	if n < 100 {
		t.Fatalf("only %d IDs after the restore", n)
	}
	last := before.sorted()[len(before.sorted())-1]
	if first := after.sorted()[0]; first[0] < last[0]+last[1] {
		t.Fatalf("after the restore, ID %d was handed out again (before the loss the IDs reached %d)", first[0], last[0]+last[1]-1)
	}
	t.Logf("after the loss: %d IDs, from %d on (before, up to %d); %s", n, after.sorted()[0][0], last[0]+last[1]-1, strings.TrimSpace(out))
}

// A persistence leader frozen past its session, then resumed, raises no
// limit after its successor has started: ZooKeeper refuses its raises, as
// its election znode went with its session. To freeze it at the worst
// moment, its store answers half a second late (as a remote store may),
// and it is frozen just after it stored a reservation, before it raises
// the limit. Both modes: the raise is the same, what the workers do at
// the limit is not.
func TestFrozenLeaderRaisesNothingAfterItsSuccessor(t *testing.T) {
	t.Parallel()
	// A compare-and-set worker at the limit waits, so the holes are only
	// the reservations' ends; a counter's worker burns the versions it
	// gets past the limit, so its holes have no bound but the wait.
	for mode, maxGap := range map[string]int64{"cas": 9, "counter": math.MaxInt64} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			frozenLeader(t, mode, maxGap)
		})
	}
}

func frozenLeader(t *testing.T, mode string, maxGap int64) {
	cluster := zktest.Start(t, 1)
	conn := cluster.ConnString()
	store := t.TempDir()
	mustSeqid(t, "create", "--servers", conn, "--mode", mode, "frozen")
	a := startPersisterEnv(t, []string{"SEQID_STORE_LATENCY=500ms"}, conn, store, "a", "--block", "20") // a's alone
	admin := zktest.Connect(t, cluster.Servers(), 4*time.Second)
	for leader(t, admin, func(string) bool { return true }) != "a" {
		time.Sleep(20 * time.Millisecond)
	}
	b := startPersister(t, conn, store, "b", "--block", "20")
	var got ranges
	stop := make(chan struct{})
	wait := workers(t, cluster.Servers(), "frozen", 4, &got, stop)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.p.WaitForStderr(ctx, "raised the limit"); err != nil {
		t.Fatal(err)
	}
	// Freeze a the moment its next reservation is on disk.
	files, err := sequence.OpenFileStore(store)
	if err != nil {
		t.Fatal(err)
	}
	reserved := func() int64 {
		all, err := files.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return all["frozen"].Value
	}
	for stored := reserved(); reserved() == stored; time.Sleep(time.Millisecond) {
		if ctx.Err() != nil {
			t.Fatal("the leader stored no new reservation")
		}
	}
	a.p.Stop()
	if err := b.p.WaitForStderr(ctx, "now the persistence leader"); err != nil {
		t.Fatal(err)
	}
	successor := logLines(t, b.p.Stderr(), "now the persistence leader")[0]
	time.Sleep(time.Second) // the workers go on, under b's raises
	a.p.Cont()
	if err := a.p.WaitForStderr(ctx, "no longer the persistence leader"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	close(stop)
	wait()
	got.check(t, maxGap)
	for _, at := range logLines(t, a.p.Stderr(), "raised the limit") {
		if !at.Before(successor) {
			t.Errorf("the frozen leader raised a limit at %s, after its successor started at %s", at.Format(time.StampMilli), successor.Format(time.StampMilli))
		}
	}
	// Which guard stopped the raise that was on its way depends on which
	// goroutine runs first after SIGCONT: the election's, which silences
	// the term as soon as it sees the connection gone, or the raise's,
	// whose multi ZooKeeper then refuses (the fence; see the sequence
	// package's TestRaiseOfAReplacedLeaderIsRefused for it alone).
	t.Logf("the frozen leader's raises refused by ZooKeeper after it resumed: %d", len(logLines(t, a.p.Stderr(), "ZooKeeper refused to raise")))
	if len(logLines(t, b.p.Stderr(), "raised the limit")) == 0 {
		t.Errorf("the successor raised nothing: the workers did not need it")
	}
}

// A sequence created while the service runs gets a stored reservation
// and a limit without a restart: dynamic node detection.
func TestSequencesCreatedLaterAreMaintained(t *testing.T) {
	t.Parallel()
	conn := server(t)
	root := fmt.Sprintf("/dyn-%d", time.Now().UnixNano())
	store := t.TempDir()
	p := startPersister(t, conn, store, "dyn", "--root", root, "--election", root+"-persist")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.p.WaitForStderr(ctx, "now the persistence leader"); err != nil {
		t.Fatal(err)
	}
	mustSeqid(t, "create", "--servers", conn, "--root", root, "--start", "500", "later")
	for ctx.Err() == nil {
		out := mustSeqid(t, "list", "--servers", conn, "--root", root, "--store", store)
		if f := strings.Fields(out); len(f) == 10 && f[5] == "later" && f[9] != "-" && f[8] == f[9] && f[8] != "500" {
			out = mustSeqid(t, "next", "--servers", conn, "--root", root, "--count", "2", "later")
			if out != "500\n501\n" {
				t.Fatalf("next --count 2 printed %q", out)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the new sequence got no reservation; persist said:\n%s", p.p.Stderr())
}

// restore on a live service, with nothing lost, raises each sequence to
// its reservation: the IDs in between are never handed out. That is safe,
// but a user who ran it by mistake must be told what it cost.
func TestRestoreOnALiveServiceSaysWhichIDsItSkips(t *testing.T) {
	t.Parallel()
	conn := server(t)
	root := fmt.Sprintf("/live-%d", time.Now().UnixNano())
	store := t.TempDir()
	p := startPersister(t, conn, store, "live", "--root", root, "--election", root+"-persist", "--block", "100")
	mustSeqid(t, "create", "--servers", conn, "--root", root, "live")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.p.WaitForStderr(ctx, "raised the limit"); err != nil {
		t.Fatal(err)
	}
	if out := mustSeqid(t, "next", "--servers", conn, "--root", root, "live"); out != "1\n" {
		t.Fatalf("next printed %q, want 1", out)
	}
	p.p.Term() // nobody raises the sequence meanwhile
	if code, err := p.p.Wait(ctx); err != nil || code != 0 {
		t.Fatalf("persist after SIGTERM: exit %d, %v", code, err)
	}
	out := mustSeqid(t, "restore", "--servers", conn, "--root", root, "--store", store)
	if !strings.HasPrefix(out, "live: raised") || !strings.Contains(out, "IDs 2 to 200 will never be handed out") {
		t.Fatalf("restore printed %q, want it raised, saying which IDs it skips", out)
	}
}
