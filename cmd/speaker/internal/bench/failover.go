// Package bench measures what a graceful failover costs: the time from the
// leader's exit to its successor's first fsynced, confirmed line, the
// requests and server writes on that path, and the watch notifications and
// requests of everyone else, as the number of candidates grows; beside
// go-zookeeper's own zk.Lock in the same run. `speaker bench` and
// BenchmarkFailover run it.
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/recoverable"
)

// Monitor is either recipe's Monitor (nodemonitor or znodemonitor).
type Monitor = election.Monitor

// Case is one row of the bench: a recipe at a number of candidates.
type Case struct {
	// Election and Watch name the recipe in the row ("-" for no watch mode).
	Election, Watch string
	// Policy is the speakers': at-most-one fences and confirms each line
	// (the speaker command's default), at-least-one does neither. The
	// lock rows keep their own.
	Policy election.Policy
	// New starts one candidate for listener at path; it logs to the
	// session's logger, the bench's.
	New func(rz *recoverable.RecoverableZookeeper, listener election.Listener, path string) (Monitor, error)
	// Candidates is how many candidates stand at once.
	Candidates int
	// Rounds is how many failovers are measured.
	Rounds int
	// Resign makes the leader resign (Monitor.Resign, speaker's SIGUSR1)
	// instead of exiting: the same handover, by a process that stays.
	Resign bool

	// locker makes one contender of a lock's row (LockBaseline,
	// RecipeLock), in place of New: path is the lock znode.
	locker func(rz *recoverable.RecoverableZookeeper, path, name string) locker
}

// String names the recipe, as "sequential/predecessor" or "single-file",
// and "(resign)" after a resignation's row.
func (bc Case) String() string {
	name := bc.Election
	if bc.Watch != "-" {
		name += "/" + bc.Watch
	}
	if bc.Resign {
		name += " (resign)"
	}
	if bc.locker == nil && bc.Policy != election.AtMostOne {
		name += ", " + bc.Policy.String()
	}
	return name
}

// How says how the leader leaves in this case: it exits, resigns, or
// unlocks.
func (bc Case) How() string {
	switch {
	case bc.Resign:
		return "resign"
	case bc.locker != nil:
		return "unlock"
	}
	return "exit"
}

// Row is what one case measured, per failover; its JSON is a line of
// `speaker bench --json`.
type Row struct {
	Election string `json:"election"`
	Watch    string `json:"watch"`
	// How is how the leader leaves: exit, resign or unlock.
	How string `json:"how"`
	// Policy is the speakers' policy, "-" on a lock's row.
	Policy         string  `json:"policy"`
	Candidates     int     `json:"candidates"`
	Rounds         int     `json:"rounds"`
	FailoverMsP50  float64 `json:"failover_ms_p50"`
	FailoverMsP99  float64 `json:"failover_ms_p99"`
	FailoverMsMax  float64 `json:"failover_ms_max"`
	FailoverMsMean float64 `json:"failover_ms_mean"`
	// BaselineMsP50 is zk.Lock's median in the same run, and
	// RatioToBaseline ours over it (below 1 is faster); absent on the
	// baseline's own row.
	BaselineMsP50   float64 `json:"baseline_ms_p50,omitempty"`
	RatioToBaseline float64 `json:"ratio_to_baseline,omitempty"`
	// ExitMsP50 is, on a resignation's row, the median of the graceful
	// exit's row of the same recipe in the same run, and RatioToExit ours
	// over it: a resignation should cost what an exit does.
	ExitMsP50   float64 `json:"exit_ms_p50,omitempty"`
	RatioToExit float64 `json:"ratio_to_exit,omitempty"`
	// LeftMsP50 is the median time from the exit to the moment the
	// leaver's one write (its delete) left for the server: the leaver's
	// own work, the first step of the failover.
	LeftMsP50 float64 `json:"left_ms_p50"`
	// NotifiedMsP50 is the median time from the exit to the notification's
	// arrival at the successor: the server's write and the event, the part
	// of a failover no client can make shorter.
	NotifiedMsP50 float64 `json:"notified_ms_p50"`
	// AnsweredMsP50 is the median time from the exit to the answer of the
	// last request the successor waited for: the notification and the
	// round trip. The rest of the failover is the successor's own work on
	// its first line, fsync included.
	AnsweredMsP50 float64 `json:"answered_ms_p50"`
	// The critical path: the leaver's requests and the successor's from
	// the notification to its decision, how many of them are writes, and
	// the successor's round trips.
	PathRequests float64 `json:"path_requests"`
	PathWrites   float64 `json:"path_writes"`
	RoundTrips   float64 `json:"round_trips_after_notification"`
	// Everyone's: notifications delivered, the leaver's own included (a
	// leader that watches its own znode hears of its own delete),
	// requests sent (pings apart), and the transactions the servers
	// committed (their zxid's advance).
	NotificationsPerFailover float64 `json:"notifications_per_failover"`
	RequestsPerFailover      float64 `json:"requests_per_failover"`
	WritesPerFailover        float64 `json:"writes_per_failover"`
}

// Bench runs cases against servers. The transactions it counts are those
// of the server furthest ahead.
type Bench struct {
	servers []string
	session time.Duration
	log     *slog.Logger
	joined  atomic.Int64
	dir     string // the speakers' files
}

// New returns a Bench whose candidates connect to servers asking for
// session, and log to log.
func New(servers []string, session time.Duration, log *slog.Logger) *Bench {
	return &Bench{servers: servers, session: session, log: log}
}

// Run measures cases that have the same number of candidates side by side:
// they all stand at once, each in a folder of its own, and each round
// fails every case over once, in an order that turns from round to round,
// so that none is always first after the others' work. The first warmup
// rounds are not counted: they warm the server's JIT and caches. Each
// failover closes the leader gracefully, times until its successor's
// first fsynced line, and puts a fresh candidate at the back, so that N
// stays the same.
func (b *Bench) Run(ctx context.Context, cases []Case, warmup int) ([]Row, error) {
	dir, err := os.MkdirTemp("", "zkspeaker-bench-lines-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b.dir = dir
	runs := make([]*caseRun, len(cases))
	defer func() {
		for _, cr := range runs {
			if cr != nil {
				cr.closeAll()
			}
		}
	}()
	for i, bc := range cases {
		runs[i] = &caseRun{Case: bc, lines: make(chan firstLine, 16), synced: map[*recoverable.RecoverableZookeeper]int64{},
			path: fmt.Sprintf("/zkspeaker-bench/%s-%s-%d-%x", bc.Election, bc.Watch, bc.Candidates, rand.Int63())}
		if err := b.spawn(ctx, runs[i], bc.Candidates); err != nil {
			return nil, err
		}
		if _, err := runs[i].waitLine(ctx, time.Time{}); err != nil {
			return nil, fmt.Errorf("%s: %w", bc, err)
		}
	}
	for r := -warmup; r < cases[0].Rounds; r++ {
		for k := range runs {
			cr := runs[(k+r+warmup)%len(runs)]
			if err := b.failover(ctx, cr, r >= 0); err != nil {
				return nil, fmt.Errorf("%s, round %d: %w", cr.Case, r+1, err)
			}
		}
	}
	rows := make([]Row, len(runs))
	for i, cr := range runs {
		rows[i] = cr.row()
	}
	compare(rows)
	return rows, nil
}

// compare sets each row's baseline figures from the baseline's row.
func compare(rows []Row) {
	for j, r := range rows {
		if r.How != "resign" {
			continue
		}
		k := slices.IndexFunc(rows, func(e Row) bool { return e.How == "exit" && e.Election == r.Election && e.Watch == r.Watch })
		if k >= 0 && rows[k].FailoverMsP50 > 0 {
			rows[j].ExitMsP50, rows[j].RatioToExit = rows[k].FailoverMsP50, r.FailoverMsP50/rows[k].FailoverMsP50
		}
	}
	i := slices.IndexFunc(rows, func(r Row) bool { return r.Election == LockBaseline().Election })
	if i < 0 || rows[i].FailoverMsP50 <= 0 {
		return
	}
	for j := range rows {
		if j != i {
			rows[j].BaselineMsP50 = rows[i].FailoverMsP50
			rows[j].RatioToBaseline = rows[j].FailoverMsP50 / rows[i].FailoverMsP50
		}
	}
}
