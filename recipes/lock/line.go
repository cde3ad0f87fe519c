package lock

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// The lock's line from the outside: what zkview and `speaker status` show
// of a lock's path. They ask the same rules the contenders obey (rule.go,
// semaphore.go) who holds and whom each waiter waits for, so that a change
// of a rule changes what they show with it.

// Standing decides for line[i], as that contender's own rule does, whether
// it holds and, if not, the name of the znode it waits for: a reader
// ("read-") the nearest writer ahead, a writer ("n_", and every contender
// at a semaphore's gate) the one just ahead, a lease ("lease-") the one
// just ahead once leases are taken ahead of it. line is sorted by sequence
// number with every kind in it (nodemonitor.Line); leases is the
// semaphore's N, unused for the other kinds.
func Standing(line []nodemonitor.Candidate, i, leases int) (holds bool, waits string) {
	var rule nodemonitor.Rule = writer{}
	switch line[i].Kind {
	case readPrefix:
		rule = reader{}
	case leasePrefix:
		rule = leaseRule{n: leases}
	}
	return rule.Stand(line, i)
}

// Contender is one znode of a lock's line as ZooKeeper shows it, and where
// the rules put it.
type Contender struct {
	nodemonitor.Seat
	// Holds is true for a holder: a writer alone, readers together, up
	// to N leases.
	Holds bool
	// Waits is the name of the znode a waiter waits for (and watches),
	// "" for a holder.
	Waits string
	// Revoke is true when its znode carries a revoke request (mark.go),
	// made by RevokeBy ("" when the request did not say). Seat.Data is
	// the contender's name, without the mark.
	Revoke   bool
	RevokeBy string
}

// Mode is how the contender wants the lock, as zklock's metrics label it:
// "write", "read" or "lease".
func (c Contender) Mode() string {
	switch c.Kind {
	case readPrefix:
		return "read"
	case leasePrefix:
		return "lease"
	}
	return "write"
}

// View is a lock's path at one moment: a read-write line, or a semaphore's
// leases and its gate.
type View struct {
	Path string
	// Exists is false when the lock's znode does not exist (yet).
	Exists bool
	// Leases is the N a semaphore's path records (leases=N), 0 for a lock.
	Leases int
	// Line is the lock's line, in order: readers and writers, or a
	// semaphore's leases.
	Line []Contender
	// Gate is a semaphore's gate line, in order: its first holds the gate
	// and waits for a lease to go, when every lease is taken.
	Gate []Contender
}

// Holders counts the contenders of the line that hold.
func (v View) Holders() int {
	n := 0
	for _, c := range v.Line {
		if c.Holds {
			n++
		}
	}
	return n
}

// Inspect reads the lock at path, a read-write lock's line or a
// semaphore's two, and returns a watch that fires at its next change: a
// contender joining or leaving either line, a holder's znode marked for
// revocation, the path's record changing, or the path being made or
// deleted. It only reads, so anyone may run it. When there are several
// watches, a goroutine hands on the first one that fires; it ends then,
// or with ctx.
//
// A holder's data watch stays on the client until its znode changes or
// goes, and go-zookeeper cannot remove it: a caller that inspects again at
// every change, as zkview does, keeps one small channel per holder per
// look until the holder lets go.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (View, <-chan zk.Event, error) {
	v := View{Path: path}
	for {
		data, _, wake, err := rz.GetW(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			ok, _, wake, err := rz.ExistsW(ctx, path)
			if err != nil || ok {
				if ok {
					continue // made between the two calls
				}
				return v, nil, err
			}
			return v, wake, nil
		}
		if err != nil {
			return v, nil, err
		}
		v.Exists = true
		if n, ok := strings.CutPrefix(string(data), "leases="); ok {
			v.Leases, _ = strconv.Atoi(n)
		}
		wakes := []<-chan zk.Event{wake}
		at, into := []string{path}, []*[]Contender{&v.Line}
		if v.Leases > 0 {
			at = []string{path + "/" + leasesDir, path + "/" + gateDir}
			into = append(into, &v.Gate)
		}
		for i := range at {
			line, more, err := readLine(ctx, rz, at[i], v.Leases)
			if err != nil {
				return v, nil, fmt.Errorf("lock: line of %s: %w", at[i], err)
			}
			*into[i], wakes = line, append(wakes, more...)
		}
		return v, first(ctx, wakes), nil
	}
}

// readLine reads the contenders at path, stands each one by its rule, and
// leaves a watch for the next change of the line, or for the path's
// creation when it is missing (an empty line), and one on each holder's
// data, where a revoke request lands.
func readLine(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string, leases int) ([]Contender, []<-chan zk.Event, error) {
	children, exists, wake, err := rz.ChildrenOrCreationW(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	if !exists {
		return nil, []<-chan zk.Event{wake}, nil
	}
	line := nodemonitor.Line(children)
	var out []Contender
	wakes := []<-chan zk.Event{wake}
	for i, c := range line {
		holds, waits := Standing(line, i, leases)
		data, st, marked, err := get(ctx, rz, path+"/"+c.Name, holds)
		if errors.Is(err, zk.ErrNoNode) {
			continue // left while we looked; the watch has fired already
		}
		if err != nil {
			return nil, nil, err
		}
		if holds {
			wakes = append(wakes, marked)
		}
		name, by, revoke := ReadMark(data)
		out = append(out, Contender{Seat: nodemonitor.Seat{Candidate: c, Data: name, Owner: st.EphemeralOwner, Czxid: st.Czxid},
			Holds: holds, Waits: waits, Revoke: revoke, RevokeBy: by})
	}
	return out, wakes, nil
}

// get reads a contender's znode, and leaves a watch on its data when
// watch is true.
func get(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string, watch bool) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	if watch {
		return rz.GetW(ctx, path)
	}
	data, st, err := rz.Get(ctx, path)
	return data, st, nil, err
}

// first fires with the first of wakes to fire. With more than one, a
// goroutine waits for them, and ends at the first, or with ctx.
func first(ctx context.Context, wakes []<-chan zk.Event) <-chan zk.Event {
	if len(wakes) == 1 {
		return wakes[0]
	}
	cases := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
	for _, w := range wakes {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w)})
	}
	out := make(chan zk.Event, 1)
	go func() {
		if i, ev, ok := reflect.Select(cases); i > 0 && ok {
			out <- ev.Interface().(zk.Event)
		} else if i > 0 {
			out <- zk.Event{Type: zk.EventNotWatching} // closed: the session is gone
		}
	}()
	return out
}
