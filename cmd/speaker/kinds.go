package main

import (
	"context"
	"strings"

	"github.com/go-zookeeper/zk"

	"zkspeaker/cmd/speaker/internal/bench"
	"zkspeaker/cmd/speaker/internal/status"
	"zkspeaker/internal/election"
	"zkspeaker/internal/fourletter"
	"zkspeaker/nodemonitor"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// monitor is either recipe's Monitor, as the command and the bench use it.
type monitor = election.Monitor

// monitorSettings are the flags that every recipe takes.
type monitorSettings struct {
	path   string
	watch  nodemonitor.WatchMode // sequential only
	policy nodemonitor.Policy
}

// electionKind is one value of --election: everything the command does
// differently for it, in one row, so that no other code branches on it.
type electionKind struct {
	name        string
	defaultPath string
	hasWatch    bool // whether --watch applies
	// start runs a candidate for listener on the session of rz, whose ACL
	// its znodes carry and whose logger it logs to.
	start func(rz *recoverable.RecoverableZookeeper, l nodemonitor.Listener, s monitorSettings) (monitor, error)
	// inspect reads the election for `speaker status`, and returns how to
	// draw it and the watch that fires at its next change.
	inspect func(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (status.Render, <-chan zk.Event, error)
}

var electionKinds = []electionKind{
	{
		name: "sequential", defaultPath: nodemonitor.DefaultPath, hasWatch: true,
		start: func(rz *recoverable.RecoverableZookeeper, l nodemonitor.Listener, s monitorSettings) (monitor, error) {
			return nodemonitor.New(rz, l, nodemonitor.WithPath(s.path), nodemonitor.WithWatch(s.watch),
				nodemonitor.WithPolicy(s.policy))
		},
		inspect: func(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (status.Render, <-chan zk.Event, error) {
			// A lock's path too: readers and a semaphore's leases
			// are listed with the writers (status.WriteLine).
			v, wake, err := lock.Inspect(ctx, rz, path)
			return func(b *strings.Builder, s fourletter.Sightings) { status.WriteLine(b, v, s) }, wake, err
		},
	},
	{
		name: "single-file", defaultPath: znodemonitor.DefaultPath,
		start: func(rz *recoverable.RecoverableZookeeper, l nodemonitor.Listener, s monitorSettings) (monitor, error) {
			return znodemonitor.New(rz, l, znodemonitor.WithPath(s.path),
				znodemonitor.WithPolicy(s.policy))
		},
		inspect: func(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (status.Render, <-chan zk.Event, error) {
			h, wake, err := znodemonitor.Inspect(ctx, rz, path)
			return func(b *strings.Builder, s fourletter.Sightings) { status.WriteSingleFile(b, h, s) }, wake, err
		},
	},
}

// kindNames lists the --election values, as "sequential or single-file".
func kindNames() string {
	var names []string
	for _, k := range electionKinds {
		names = append(names, k.name)
	}
	return strings.Join(names, " or ")
}

// lookupKind finds an --election value, or says what the flag takes.
func lookupKind(name string) (electionKind, error) {
	for _, k := range electionKinds {
		if k.name == name {
			return k, nil
		}
	}
	return electionKind{}, badFlag("election", "unknown value %q (want %s)", name, kindNames())
}

// benchCase is the bench's row for kind k with followers watching w, under
// policy p.
func (k electionKind) benchCase(w nodemonitor.WatchMode, p nodemonitor.Policy, candidates, rounds int) bench.Case {
	c := bench.Case{Election: k.name, Watch: "-", Policy: p, Candidates: candidates, Rounds: rounds,
		New: func(rz *recoverable.RecoverableZookeeper, l nodemonitor.Listener, path string) (bench.Monitor, error) {
			m, err := k.start(rz, l, monitorSettings{path: path, watch: w, policy: p})
			if err != nil {
				return nil, err // not a nil monitor inside a non-nil interface
			}
			return m, nil
		}}
	if k.hasWatch {
		c.Watch = w.String()
	}
	return c
}
