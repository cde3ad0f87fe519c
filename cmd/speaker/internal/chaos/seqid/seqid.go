// Package seqid is the chaos soak of the sequence-ID service: persistence
// processes (p1, p2) with one store, and workers (w1…) that loop `seqid
// next --count K`. The soak reads each worker's IDs as they are printed
// and writes each, with the moment it arrived, as a line of out.txt:
// "<time> w3 <n> id=<ID>", n counting the IDs of one `seqid next`. It
// draws DataLoss, which wipes every server, and restores with `seqid
// restore`.
package seqid

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

// Name is the recipe's name, the value of --recipe.
const Name = "seqid"

// The soak's settings: the one sequence, its persisters, the batch sizes.
const (
	sequence   = "chaos"
	persisters = 2
	maxCount   = 20
	// block is the persisters' --block: as small as a worker's largest
	// count, so that the workers reach the limit every block (the leader
	// raises it once it is less than a block above the next ID, so a call
	// that does not fit below it always brings a raise), and a build that
	// hands out IDs past it shows within seconds. With 100, the IDs of a
	// soak on a busy machine came to two or three blocks, and the broken
	// build sometimes never reached the limit.
	block    = maxCount
	election = "/seqid-persist"
)

// Recipe is the sequence-ID service's soak, as the core runs and checks it.
var Recipe = chaos.Recipe{
	Name:    Name,
	Command: "seqid",
	Noun:    fmt.Sprintf("seqid workers and %d persisters", persisters),
	Words:   words,
	// The persisters stand in a sequential election; ID lines carry no
	// epoch.
	Settle:   chaos.SideBySide,
	DataLoss: true,
	Weights:  map[chaos.Kind]int{chaos.DataLoss: 8},
	Path:     func(*chaos.Config) string { return election },
	Slots: func(c *chaos.Config) []string {
		return append(chaos.Numbered("p", persisters), chaos.Numbered("w", c.Speakers)...)
	},
	Argv: func(c *chaos.Config, name, servers string, rng *rand.Rand, _ int) []string {
		return argv(c, name, servers, 1+rng.IntN(maxCount))
	},
	Started: func(name string) string {
		if isWorker(name) {
			return `msg="connecting to ZooKeeper"`
		}
		return `msg="standing for election as a persistence process"`
	},
	// A worker ends when it has its IDs, and goes again; its status tells
	// how its one call went (no such sequence during a data loss, no
	// server): any status is its own, and only a signal or the limit makes
	// its exit a bad one.
	Respawns:   isWorker,
	GoodStatus: func(name string, _ int) bool { return isWorker(name) },
	// After a total loss, a persister may first need two session timeouts
	// to give up on its client (the servers refuse one that has seen
	// their lost transactions), then an election and a raise: three
	// sessions.
	StallBound: func(c *chaos.Config) time.Duration { return 3*c.Session + c.Tick + c.Interval + chaos.Slack },
	// The header names the sequence's mode: the two modes reach the same
	// invariants by different writes, and a report must say which it tested.
	Describe: func(c chaos.Config) string {
		return strings.Replace(c.Brief(), "chaos: seqid,", fmt.Sprintf("chaos: seqid (%s mode),", mode(&c)), 1)
	},
	Files:   "store/",
	ByZnode: true, // the out file's last line is a worker's
	Begin:   begin,
	Checker: &chaos.Checker{
		Check: func(in chaos.Input, lines []chaos.Line) []chaos.Section {
			return []chaos.Section{{What: "duplicate IDs", Mark: "duplicate ID", Found: duplicateIDs(lines)},
				{What: "IDs below a restore", Mark: "ID below a restore", Found: idsBelowRestore(lines, in.Faults)},
				{What: "IDs not below a stored reservation", Mark: "ID not reserved", Found: unreservedIDs(lines, stored(in))}}
		},
		NotLooked: "overlaps: not looked for (workers take IDs side by side)",
	},
	Summary: func(_ chaos.Input, r chaos.Report) string {
		return fmt.Sprintf("IDs handed out %d, by workers %d (%s)", r.Lines, len(r.Writers), strings.Join(r.Writers, ", "))
	},
}

// isWorker says whether the slot called name is a worker.
func isWorker(name string) bool { return strings.HasPrefix(name, "w") }

// argv is a seqid process's command line.
func argv(c *chaos.Config, name, servers string, count int) []string {
	common := []string{"--servers", servers, "--session-timeout", c.Session.String()}
	if isWorker(name) {
		return append(append([]string{"next"}, common...), "--log-level", "info", "--count", strconv.Itoa(count),
			"--wait", (4 * c.Session).String(), sequence)
	}
	// At debug level a persister logs each reservation it stores before
	// ZooKeeper may let an ID below it out: the checker's record of them.
	return append(append([]string{"persist"}, common...), "--log-level", "debug", "--store", storeDir(c), "--block", strconv.Itoa(block), "--name", name)
}

// mode is the soak's sequence's mode: counter unless the config says.
func mode(c *chaos.Config) string {
	if c.SeqidMode == "" {
		return "counter"
	}
	return c.SeqidMode
}

// storeDir is the persisters' store: the article's S3.
func storeDir(c *chaos.Config) string { return filepath.Join(c.Dir, "store") }

// begin makes the sequence and the store's folder, and opens the sink of
// the workers' IDs.
func begin(ctx context.Context, env *chaos.Env) (*chaos.Running, error) {
	c := env.Config()
	if err := os.MkdirAll(storeDir(c), 0o755); err != nil {
		return nil, err
	}
	if _, err := env.Command(ctx, "create", "--mode", mode(c), sequence); err != nil {
		return nil, err
	}
	ids, err := openIDSink(c.Out())
	if err != nil {
		return nil, err
	}
	return &chaos.Running{
		Sink: func(name string) chaos.LineSink {
			if isWorker(name) {
				return ids
			}
			return nil
		},
		Restore: func(ctx context.Context) string {
			out, err := env.Command(ctx, "restore", "--store", storeDir(c))
			if err != nil {
				return err.Error()
			}
			return "restored: " + strings.Join(strings.Fields(out), " ")
		},
		Close:  ids.close,
		Record: func() any { return readStored(c.Dir, chaos.Numbered("p", persisters)) },
	}, nil
}

// idSink writes the IDs the workers print into out.txt, one line each.
type idSink struct {
	mu sync.Mutex
	f  *os.File
}

func openIDSink(out string) (*idSink, error) {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &idSink{f: f}, nil
}

// Line writes one printed ID as an ID line of name.
func (k *idSink) Line(name string, n uint64, at time.Time, text string) {
	l := speaker.Line{Time: at, Name: name, Counter: n, Extra: []string{"id=" + strings.TrimSpace(text)}}
	k.mu.Lock()
	defer k.mu.Unlock()
	_, _ = k.f.Write(l.Append(nil))
}

func (k *idSink) close() { _ = k.f.Close() }

// words are the sequence's: the persisters' leader, IDs handed out.
var words = chaos.Words{
	Lead:    "leader",
	Counts:  chaos.OnTheSubject,
	Columns: []string{"on the leader", "min", "median", "max", "no ID after"},
	Key: []string{"(n: faults injected; on the leader: those that hit the leader of the persisters (p1, p2),",
		" with min/median/max of the time from the fault to the next ID handed out to any worker;",
		" no ID after: those that hit the leader with no ID handed out after them before the end)"},
	DeleteKind: "delete-leader",
	Silence:    "no ID handed out from", Bound: "3 × session + tick + interval + slack after the last fault healed: a persister may first give up a refused client",
	Green: "a worker handed IDs", Wrote: "was handed IDs",
	Checker: "duplicate IDs, IDs below a restore, IDs not below a stored reservation and stalls",
}
