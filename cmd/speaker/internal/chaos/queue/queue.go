// Package queue is the chaos soak of zkqueue: producers (p1, p2) that put
// one item a run, `zkqueue put`, again and again, each item's value its
// producer's name and run ("p1-7"), and consumers (c1…) that take at least
// once with `zkqueue take --follow --work`, printing each value before
// they acknowledge it. Before any process starts, the operator puts a
// backlog ("operator-1"…, backlog.go), for the order check to judge. The consumers' values go to out.txt as lines
// "<time> c2 <n> took=p1-7"; the producers' and consumers' logs say which
// puts were acknowledged and which items acknowledged (record.go), and
// the queue is listed once every process has ended. At the end the
// producers stop first, and the consumers reap the ledgers of the
// processes killed in the soak (wind.go). The checker
// (check.go) holds the soak to the queue's promises under at-least-once.
package queue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

// Name is the recipe's name, the value of --recipe.
const Name = "queue"

// The soak's settings: the queue, its producers, the consumers' work.
const (
	path      = "/chaos-queue"
	producers = 2
	work      = 300 * time.Millisecond
	urgent    = 5 // the priority of one put in four
)

// Recipe is the queue's soak, as the core runs and checks it.
var Recipe = chaos.Recipe{
	Name:    Name,
	Command: "zkqueue",
	Noun:    fmt.Sprintf("zkqueue consumers and %d producers", producers),
	Words:   words,
	Settle:  chaos.SideBySide,
	// An operator deleting items or the queue loses acknowledged puts by
	// hand: not a fault the queue can survive, and not drawn.
	Weights: map[chaos.Kind]int{chaos.DeleteLeader: 0, chaos.DeletePath: 0},
	Path:    func(*chaos.Config) string { return path },
	Layout:  func(*chaos.Config) chaos.Layout { return chaos.Layout{AnyNames: true} },
	Slots:   slots,
	Argv:    argv,
	// Every run of a producer is one put; a consumer killed starts again.
	Respawns: func(string) bool { return true },
	// A put that found no ZooKeeper in time exits 1 and is not
	// acknowledged: its own affair. A consumer stops with 0.
	GoodStatus: func(name string, status int) bool { return isProducer(name) || status == 0 },
	// A consumer holding an item when it was killed or frozen holds it
	// for its session; the next take comes after that.
	StallBound: func(c *chaos.Config) time.Duration { return 2*c.Session + c.Tick + work + c.Interval + chaos.Slack },
	Describe:   chaos.Config.Brief,
	// Items are persistent: the checker looks at what is left in the
	// queue, and at the ledgers left (check.go).
	NoLeaks: true,
	Begin:   begin,
	Summary: summary,
	Checker: &chaos.Checker{
		Check:     check,
		NotLooked: "overlaps: not looked for (consumers take side by side)",
		NoLeaks:   "leftover znodes: items are persistent; the checker looks at what is left in the queue",
	},
}

// slots are the producers, then the consumers.
func slots(c *chaos.Config) []string {
	return append(chaos.Numbered("p", producers), chaos.Numbered("c", c.Speakers)...)
}

// isProducer says whether the slot called name is a producer.
func isProducer(name string) bool { return strings.HasPrefix(name, "p") }

// argv is a producer's put, or a consumer's take. One put in four is
// urgent, so that the order taken is by priority, then by put.
func argv(c *chaos.Config, name, servers string, rng *rand.Rand, life int) []string {
	common := []string{"--servers", servers, "--session-timeout", c.Session.String(), "--log-level", "info"}
	if isProducer(name) {
		put := append(append([]string{"put"}, common...), "--timeout", (4 * c.Session).String())
		if rng.IntN(4) == 0 {
			put = append(put, "--priority", fmt.Sprint(urgent))
		}
		return append(put, path, fmt.Sprintf("%s-%d", name, life))
	}
	return append(append([]string{"take"}, common...), "--follow", "--delivery", "at-least-once", "--work", work.String(), path)
}

// begin puts the backlog (backlog.go), opens the sink of the consumers'
// values, and keeps the operator's client for the look at the queue at
// the end.
func begin(ctx context.Context, env *chaos.Env) (*chaos.Running, error) {
	c := env.Config()
	backlog, err := putBacklog(ctx, env)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(c.Out(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	sink := &tookSink{f: f}
	names := slots(c)
	return &chaos.Running{
		Sink: func(name string) chaos.LineSink {
			if isProducer(name) {
				return nil
			}
			return sink
		},
		Close: func() { _ = f.Close() },
		Wind:  wind(env),
		Record: func() any {
			left, ledgers, err := leftInQueue(env)
			r := readRecord(c.Dir, names, left, err)
			r.Puts = slices.Concat(backlog, r.Puts) // put before every other
			r.Ledgers = ledgers
			return r
		},
	}, nil
}

// tookSink writes each value a consumer prints as a line of out.txt.
type tookSink struct {
	mu sync.Mutex
	f  *os.File
}

// Line writes one printed value as a took line of name.
func (k *tookSink) Line(name string, n uint64, at time.Time, text string) {
	l := speaker.Line{Time: at, Name: name, Counter: n, Extra: []string{"took=" + strings.TrimSpace(text)}}
	k.mu.Lock()
	defer k.mu.Unlock()
	_, _ = k.f.Write(l.Append(nil))
}

// summary is the report's line of what the processes did.
func summary(in chaos.Input, rep chaos.Report) string {
	r := record(in)
	produced, backlog := puts(r)
	return fmt.Sprintf("puts acknowledged %d, takes %d, items acknowledged %d, claims lost %d, left in the queue %d, a backlog of %d put before the start",
		produced, rep.Lines, len(r.Acks), len(r.Lost), len(r.Left), backlog)
}

// words are the queue's: consumers and items taken.
var words = chaos.Words{
	Lead:    "last consumer",
	Counts:  chaos.OnTheSubject,
	Columns: []string{"on the last consumer", "min", "median", "max", "no take after"},
	Key: []string{"(n: faults injected; on the last consumer: those that hit the consumer that took last,",
		" with min/median/max of the time from the fault to the next item taken by any consumer;",
		" no take after: those with no item taken after them before the end)"},
	DeleteKind: "delete-item",
	Silence:    "no item taken from", Bound: "2 × session + tick + work + interval + slack after the last fault healed",
	Green: "a consumer took an item", Wrote: "took items",
	Checker: "items acknowledged twice, taken while held, lost, acknowledged but left, out of order, ledgers left, and stalls",
}
