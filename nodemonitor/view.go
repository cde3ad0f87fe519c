package nodemonitor

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// Seat is one candidate of a sequential election as ZooKeeper sees it.
type Seat struct {
	Candidate
	// Data is the znode's data: the candidate's process name.
	Data string
	// Owner is the session that created the ephemeral znode.
	Owner int64
	// Czxid is the transaction that created it: the epoch on its lines.
	Czxid int64
}

// View is a sequential election at one moment, from the outside: what
// `speaker status` prints. The first seat leads; seat i>0 watches seat i-1
// (under the default WatchPredecessor).
type View struct {
	Path  string
	Seats []Seat
	// Exists is false when the election znode itself does not exist (yet).
	Exists bool
}

// Predecessor is the seat that seat i watches under WatchPredecessor, or
// nil for the leader.
func (v View) Predecessor(i int) *Seat {
	if i <= 0 || i >= len(v.Seats) {
		return nil
	}
	return &v.Seats[i-1]
}

// Inspect reads the election at path and leaves a watch that fires at its
// next change: a candidate joining or leaving, or the path being created or
// deleted. It only reads, so anyone may run it, with or without --auth.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (View, <-chan zk.Event, error) {
	v := View{Path: path}
	for {
		children, wake, err := rz.ChildrenW(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			// Watch for the path to appear instead.
			ok, _, wake, err := rz.ExistsW(ctx, path)
			if err != nil {
				return v, nil, err
			}
			if ok {
				continue // created between the two calls
			}
			return v, wake, nil
		}
		if err != nil {
			return v, nil, err
		}
		v.Exists = true
		for _, c := range Candidates(children) {
			data, st, err := rz.Get(ctx, path+"/"+c.Name)
			if errors.Is(err, zk.ErrNoNode) {
				continue // left while we looked; the watch has fired already
			}
			if err != nil {
				return v, nil, err
			}
			v.Seats = append(v.Seats, Seat{Candidate: c, Data: string(data), Owner: st.EphemeralOwner, Czxid: st.Czxid})
		}
		return v, wake, nil
	}
}
