// Package config is the chaos soak of the configuration service:
// updaters (u1…) that each write their own key (/chaos-config/u1…) again
// and again, each write a `zkconfig set` of the next number, and for each
// key a watcher (v1…) running `zkconfig watch`, each behind fault proxies
// of its own. A write is acknowledged when its set exits 0. The watchers'
// values go to out.txt as lines "<time> v1 <n> value=<number>", so the
// picture shows when each watcher heard of a write.
package config

import (
	"context"
	"math/rand/v2"
	"strconv"

	"github.com/go-zookeeper/zk"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Name is the recipe's name, the value of --recipe.
const Name = "config"

// path is the keys' parent.
const path = "/chaos-config"

// Recipe is the configuration service's soak, as the core runs and
// checks it.
var Recipe = chaos.Recipe{
	Name:    Name,
	Command: "zkconfig",
	Noun:    "config updaters, each with a watcher",
	Words:   words,
	Settle:  chaos.SideBySide,
	// Deleting every key at once is no fault of the service's.
	Weights: map[chaos.Kind]int{chaos.DeletePath: 0},
	Path:    func(*chaos.Config) string { return path },
	Slots: func(c *chaos.Config) []string {
		return append(chaos.Numbered("u", c.Speakers), chaos.Numbered("v", c.Speakers)...)
	},
	Argv: argv,
	Started: func(name string) string {
		if isUpdater(name) {
			return `msg="connecting to ZooKeeper"`
		}
		return `msg="watching `
	},
	Respawns: func(string) bool { return true },
	// An updater is a command that ends on its own, whose status tells how
	// its one set went: any status is its own, and only a signal or the
	// limit makes its exit a bad one.
	GoodStatus: func(name string, _ int) bool { return isUpdater(name) },
	Describe:   chaos.Config.Brief,
	Members:    true,
	NoLeaks:    true, // keys are persistent: nothing of theirs can leak
	Begin:      begin,
	Checker: &chaos.Checker{
		Check:     sections,
		NotLooked: "overlaps: not looked for (updaters write side by side)",
		Measure:   measure,
		NoLeaks:   "leaks: not looked for (keys are persistent znodes: nothing of an updater's is left to leak)",
	},
	Summary: summary,
	Picture: &chaos.Picture{LaneOf: keyHit},
}

// argv is a config process's command line; life counts the slot's
// processes from 1, and an updater's life is the value it writes.
func argv(c *chaos.Config, name, servers string, _ *rand.Rand, life int) []string {
	common := []string{"--servers", servers, "--path", path, "--session-timeout", c.Session.String(), "--log-level", "info"}
	if isUpdater(name) {
		return append(append([]string{"set"}, common...), keyOf(name), strconv.Itoa(life))
	}
	return append(append([]string{"watch"}, common...), keyOf(name))
}

// begin makes the keys' parent and opens the sink of the watchers'
// values. At the end, the updaters stop first: the watchers get the bound
// to hear of the last writes, and the keys are read then.
func begin(ctx context.Context, env *chaos.Env) (*chaos.Running, error) {
	if _, err := env.Conn().Create(ctx, path, nil, zk.WorldACL(zk.PermAll)); err != nil {
		return nil, err
	}
	values, err := openValueSink(env.Config().Out())
	if err != nil {
		return nil, err
	}
	var final map[string]int64
	return &chaos.Running{
		Sink: func(name string) chaos.LineSink {
			if isUpdater(name) {
				return nil
			}
			return values
		},
		Wind: func(ctx context.Context) {
			env.Stop(isUpdater)
			c := env.Config()
			chaos.Sleep(ctx, c.Session+c.Tick+chaos.Slack)
			final = finalValues(ctx, env)
		},
		Record: func() any { return record(env, values, final) },
		Close:  values.close,
	}, nil
}

// words are the configuration's: keys, their watchers' values.
var words = chaos.Words{
	Counts:  chaos.OnTheSubject,
	Columns: []string{"on a key", "min", "median", "max", "no value after"},
	Key: []string{"(n: faults injected; on a key: those on a key's updater or watcher, or on its znode,",
		" with min/median/max of the time from the fault to the next value printed by its key's watcher;",
		" no value after: those with no value from its key's watcher after them before the end)"},
	DeleteKind: "delete-key",
	Silence:    "no value from", Bound: "session + tick + interval + slack after the silence began or the last fault healed",
	Green: "a watcher printing a value", Wrote: "printed a value",
	Checker: "values that went back, lost writes, stale watchers and stalls",
}
