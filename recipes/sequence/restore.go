package sequence

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrRefused is returned by Restore when a sequence in ZooKeeper is beyond
// the reservation in the Store: the Store is not this ensemble's, or it is
// behind, and lowering the sequence could hand out IDs twice.
var ErrRefused = errors.New("sequence: refused to lower a sequence")

// RestoreAction says what Restore did to one sequence.
type RestoreAction string

// What Restore can do to a sequence.
const (
	Created   RestoreAction = "created"   // it was missing: made at its reservation
	Raised    RestoreAction = "raised"    // it was below its reservation: moved up to it
	Unchanged RestoreAction = "unchanged" // it was at its reservation already
	Refused   RestoreAction = "refused"   // it was beyond its reservation: left alone
)

// Restored is what Restore did to one sequence.
type Restored struct {
	Name     string
	Reserved int64         // its reservation in the Store
	Action   RestoreAction //
	Before   *Info         // the sequence as it was, nil when missing
}

// Restore puts every sequence of store back into ZooKeeper after ZooKeeper
// lost its data: each at its stored reservation, which is above every ID
// ever handed out, with its limit there too, so that no ID is handed out
// until a persistence leader stores a new reservation. A sequence that
// exists is raised to its reservation, never lowered (ErrRefused).
func Restore(ctx context.Context, rz *recoverable.RecoverableZookeeper, store Store, opts ...Option) ([]Restored, error) {
	o, err := newOptions(rz, opts)
	if err != nil {
		return nil, err
	}
	reserved, err := store.All(ctx)
	if err != nil {
		return nil, err
	}
	if err := rz.EnsurePath(ctx, o.root, o.acl); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(reserved))
	for name := range reserved {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []Restored
	var refused []string
	for _, name := range names {
		r, err := restoreOne(ctx, rz, o.root+"/"+name, name, reserved[name], o.acl)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if r.Action == Refused {
			refused = append(refused, name)
		}
	}
	if len(refused) > 0 {
		return out, fmt.Errorf("%w: %v beyond their reservations (is this the store of this ensemble?)", ErrRefused, refused)
	}
	return out, nil
}

func restoreOne(ctx context.Context, rz *recoverable.RecoverableZookeeper, path, name string, res Reservation, acl []zk.ACL) (Restored, error) {
	reserved := res.Value // its incarnation is the lost znode's
	r := Restored{Name: name, Reserved: reserved}
	// A new incarnation: a worker that still holds a state of the lost
	// znode must not find its version valid on this one. In ModeCounter,
	// a new counter too, from version 0, whose base is the reservation.
	inc := newToken()
	for {
		st, ver, cver, err := read(ctx, rz, path)
		if errors.Is(err, zk.ErrNoNode) {
			err := create(ctx, rz, path, startAt(res.Mode.or(), reserved, inc), acl)
			if errors.Is(err, zk.ErrNodeExists) {
				continue // made meanwhile (or by our own lost create): look again
			}
			r.Action = Created
			return r, err
		}
		if err != nil {
			return r, err
		}
		before := st.info(name, cver)
		r.Before = &before
		switch {
		case before.Next > reserved || st.Limit > reserved:
			r.Action = Refused
			return r, nil
		case before.Next == reserved:
			r.Action = Unchanged
			return r, nil
		}
		// A new incarnation here too: a partial loss can roll the znode
		// back to an older state of the same incarnation, and a worker
		// whose cached version equals the raised one would otherwise write
		// its pre-loss state, far below the reservation, over it.
		at := startAt(st.Mode, reserved, inc)
		_, err = rz.Multi(ctx, st.renewOps(path, ver, at.written(newToken()), acl)...)
		if errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode) {
			continue // a worker or a leader wrote meanwhile, or it was made anew: decide again
		}
		r.Action = Raised
		return r, err
	}
}
