// Package group is the chaos soak of group membership: members (m1…) that
// each run `zkgroup join` until stopped, and a watcher running `zkgroup
// list --watch`, each behind fault proxies of its own. The operator reads
// the group every sampleEvery, as `zkgroup list` would, and writes a line
// for each member it lists to out.txt ("<time> m2 <n>", n counting the
// readings that list it in a row), so that the picture shows each
// member's lane green while ZooKeeper lists it. The watcher's reports go
// to watch.txt.
package group

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Name is the recipe's name, the value of --recipe.
const Name = "group"

// Recipe is group membership's soak, as the core runs and checks it.
var Recipe = chaos.Recipe{
	Name:    Name,
	Command: "zkgroup",
	Noun:    "group members and a watcher",
	Words:   words,
	Settle:  chaos.SideBySide,
	// Deleting the group ends every member, as the chapter's DeleteGroup
	// means it to: a different program.
	Weights: map[chaos.Kind]int{chaos.DeletePath: 0},
	Path:    func(*chaos.Config) string { return groupPath },
	Slots:   func(c *chaos.Config) []string { return append(chaos.Numbered("m", c.Speakers), watcherName) },
	Argv:    argv,
	// The watcher is ready at its first line.
	Started:  func(string) string { return `msg="joined the group"` },
	Respawns: func(string) bool { return true },
	// A member that cannot leave at once (ZooKeeper out of reach) says so
	// and exits 1, as zkgroup join documents; only a signal or the limit
	// is a bad exit.
	GoodStatus: func(name string, _ int) bool { return name != watcherName },
	// The lines are the operator's readings: after a server comes back,
	// its own client must reconnect (go-zookeeper backs off between
	// tries) before it reads again. Whether the members are right is the
	// listing check's, with its own bound.
	StallBound: func(c *chaos.Config) time.Duration { return 2*c.Session + c.Tick + c.Interval + chaos.Slack },
	Describe:   chaos.Config.Brief,
	Files:      "watch.txt",
	Members:    true,
	Begin:      begin,
	Checker: &chaos.Checker{
		Check: func(in chaos.Input, _ []chaos.Line) []chaos.Section {
			listing, watcher := checkGroup(in)
			return []chaos.Section{{What: "wrong listings", Mark: "wrong listing", Found: listing},
				{What: "wrong watcher reports", Mark: "wrong watcher report", Found: watcher}}
		},
		NotLooked: "overlaps: not looked for (members are in the group side by side)",
		Measure: func(in chaos.Input, _ []chaos.Line) func(chaos.Fault) chaos.Outcome {
			return func(f chaos.Fault) chaos.Outcome { return leftOut(in, f) }
		},
		LeftOut: true,
	},
	Summary: func(in chaos.Input, _ chaos.Report) string {
		g := rec(in)
		members := memberNames(g.Lives)
		return fmt.Sprintf("readings %d, members %d (%s), watcher reports %d", len(g.Samples), len(members), strings.Join(members, ", "), len(g.Reports))
	},
	Picture: picture,
}

// argv is a group process's command line.
func argv(c *chaos.Config, name, servers string, _ *rand.Rand, _ int) []string {
	common := []string{"--servers", servers, "--session-timeout", c.Session.String(), "--log-level", "info"}
	if name == watcherName {
		return append(append([]string{"list", "--watch"}, common...), groupPath)
	}
	return append(append([]string{"join"}, common...), groupPath, name)
}

// begin makes the group, opens its record and starts the operator's
// readings, which end with the faults.
func begin(ctx context.Context, env *chaos.Env) (*chaos.Running, error) {
	if _, err := env.Conn().Create(ctx, groupPath, nil, zk.WorldACL(zk.PermAll)); err != nil {
		return nil, err
	}
	rec, err := openGroupRecord(env.Config().Dir)
	if err != nil {
		return nil, err
	}
	readCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		rec.readUntil(readCtx, env)
	}()
	stop := func() {
		cancel()
		<-done
	}
	return &chaos.Running{
		Sink: func(name string) chaos.LineSink {
			if name == watcherName {
				return rec
			}
			return nil
		},
		Wind:   func(context.Context) { stop() },
		Record: func() any { return rec.record(env) },
		Close: func() {
			stop()
			rec.close()
		},
	}, nil
}

// words are the group's: members, in the listing or left out.
var words = chaos.Words{
	Counts:  func(h chaos.Handover) []int { return []int{h.On, h.LeftOut} },
	Columns: []string{"on a member", "left out", "min", "median", "max", "not back"},
	Key: []string{"(n: faults injected; on a member: those on a member's process, network or znode;",
		" left out: those after which the member was left out of the listing by a reading before its next fault",
		" (of faults close together, the last one is counted), with min/median/max",
		" of the time from the fault to the first reading that listed it again;",
		" not back: left out, and not listed again before the end)"},
	DeleteKind: "delete-member",
	Silence:    "no reading from", Bound: "2 × session + tick + interval + slack after the last fault healed: the operator's own client reconnects first",
	Green: "the member in ZooKeeper's listing; on the watcher's lane, its last report agrees with the listing", Wrote: "listed",
	Checker: "wrong listings, wrong watcher reports and stalls",
}
