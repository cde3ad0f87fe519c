package barrier

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// The barrier from the outside: what zkview shows of a barrier's path.
// It reads the znodes the members read and stands each member by the same
// rule they use (of: the members of the round whose ready znode names its
// last one), so that the picture is what the members decide.

// View is a barrier's path at one moment: a simple barrier set or not, or
// a double barrier's members, its N and its open round.
type View struct {
	Path string
	// Exists is true while the barrier's znode exists: a simple barrier
	// is set, a double barrier has been entered at least once.
	Exists bool
	// Count is the double barrier's N, as its znode records it; 0 for a
	// simple barrier, or a double barrier nobody entered yet.
	Count int
	// Round is the last member of the open round, as the ready znode
	// names it: every member up to it is past the barrier. 0 while no
	// round is open: every member waits until N are in.
	Round int64
	// Members are the member znodes, by sequence number.
	Members []Member
}

// Member is one member znode of a double barrier.
type Member struct {
	nodemonitor.Seat
	// Inside is true for a member of the open round: past the barrier,
	// at its work or waiting for the others to leave. A member that is
	// not inside waits: for N to be in, or, when a round is open, for
	// that round to end before its own can start.
	Inside bool
}

// Waiting counts the members not inside: those the count of N is about
// while no round is open.
func (v View) Waiting() int {
	n := 0
	for _, m := range v.Members {
		if !m.Inside {
			n++
		}
	}
	return n
}

// Inspect reads the barrier at path and returns a watch that fires at its
// next change: a member entering or leaving, a round opening or closing
// (the ready znode is a child too), or the path being set or removed. It
// only reads, so anyone may run it, and leaves one watch per look.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (View, <-chan zk.Event, error) {
	v := View{Path: path}
	children, exists, wake, err := rz.ChildrenOrCreationW(ctx, path)
	if err != nil {
		return v, nil, fmt.Errorf("barrier: inspect %s: %w", path, err)
	}
	if !exists {
		return v, wake, nil
	}
	v.Exists = true
	if err := v.read(ctx, rz, children); err != nil {
		return v, nil, fmt.Errorf("barrier: inspect %s: %w", path, err)
	}
	return v, wake, nil
}

// read fills the count, the open round and the members from the znodes
// under the path. A znode that goes while it reads is left out: the
// watch has fired already.
func (v *View) read(ctx context.Context, rz *recoverable.RecoverableZookeeper, children []string) error {
	data, _, err := rz.Get(ctx, v.Path)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	if n, ok := cutCount(string(data)); ok {
		v.Count, _ = strconv.Atoi(n)
	}
	ready, _, err := rz.Get(ctx, v.Path+"/"+readyName)
	switch {
	case err == nil:
		v.Round, _ = strconv.ParseInt(string(ready), 10, 64)
	case !errors.Is(err, zk.ErrNoNode):
		return err
	}
	var all []nodemonitor.Candidate
	for _, c := range nodemonitor.Line(children) {
		if c.Kind == memberPrefix {
			all = append(all, c)
		}
	}
	inside := map[int64]bool{}
	if v.Round > 0 {
		for _, m := range of(all, v.Round) {
			inside[m.Seq] = true
		}
	}
	for _, c := range all {
		name, st, err := rz.Get(ctx, v.Path+"/"+c.Name)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return err
		}
		v.Members = append(v.Members, Member{Seat: nodemonitor.Seat{Candidate: c, Data: string(name), Owner: st.EphemeralOwner, Czxid: st.Czxid},
			Inside: inside[c.Seq]})
	}
	return nil
}
