package sequence

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// ErrExists is returned by Create for a sequence that exists already.
var ErrExists = errors.New("sequence: exists already")

// Create makes the sequence name, whose first ID will be start. Its limit
// starts at start too: no ID is handed out until a persistence leader has
// stored a reservation and raised the limit.
func Create(ctx context.Context, rz *recoverable.RecoverableZookeeper, name string, start int64, opts ...Option) error {
	o, err := newOptions(rz, opts)
	if err != nil {
		return err
	}
	if err := ValidateName(name); err != nil {
		return err
	}
	if start < 0 || start > MaxStart {
		return reason.New(ErrInvalid, "start", "start %d: want 0 to %d", start, int64(MaxStart))
	}
	if err := rz.EnsurePath(ctx, o.root, o.acl); err != nil {
		return err
	}
	err = create(ctx, rz, o.root+"/"+name, startAt(o.mode.or(), start, newToken()), o.acl)
	if errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("%w: %q", ErrExists, name)
	}
	return err
}

// startAt is a sequence of mode whose next ID is at, with no room below
// its limit yet, under incarnation.
func startAt(mode Mode, at int64, incarnation string) state {
	if mode == ModeCounter {
		return state{Mode: mode, Base: at, Limit: at, Incarnation: incarnation}
	}
	return state{Mode: mode, Next: at, Limit: at, Incarnation: incarnation}
}

// create makes the sequence's znode with st and its incarnation's marker,
// with acl, in one multi. A create sent again after a connection loss that
// finds the znode there is ours if it holds our incarnation.
func create(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string, st state, acl []zk.ACL) error {
	_, err := rz.Multi(ctx,
		&zk.CreateRequest{Path: path, Data: st.written(newToken()).encode(), Acl: acl},
		&zk.CreateRequest{Path: st.marker(path), Acl: acl})
	if errors.Is(err, zk.ErrNodeExists) && errors.Is(err, recoverable.ErrRetried) {
		if data, _, gerr := rz.Get(ctx, path); gerr == nil {
			if now, derr := decodeState(data); derr == nil && now.Incarnation == st.Incarnation {
				return nil // our first attempt made it
			}
		}
	}
	return err
}

// Delete removes the sequence name. Its reservation stays in the Store:
// Restore would bring it back.
func Delete(ctx context.Context, rz *recoverable.RecoverableZookeeper, name string, opts ...Option) error {
	o, err := newOptions(rz, opts)
	if err != nil {
		return err
	}
	if err := ValidateName(name); err != nil {
		return err
	}
	path := o.root + "/" + name
	for {
		data, _, err := rz.Get(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			return reason.New(ErrNotFound, "name", "%q", name)
		}
		if err != nil {
			return err
		}
		st, err := decodeState(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		_, err = rz.Multi(ctx, &zk.DeleteRequest{Path: st.marker(path), Version: -1}, &zk.DeleteRequest{Path: path, Version: -1})
		if errors.Is(err, zk.ErrNoNode) {
			continue // deleted meanwhile, or made anew: look again
		}
		return err
	}
}

// Info is one sequence as List sees it.
type Info struct {
	Name  string
	Mode  Mode  // how its workers take IDs
	Next  int64 // the next ID to hand out
	Limit int64 // IDs below it may be handed out
}

// List returns every sequence, by name.
func List(ctx context.Context, rz *recoverable.RecoverableZookeeper, opts ...Option) ([]Info, error) {
	o, err := newOptions(rz, opts)
	if err != nil {
		return nil, err
	}
	names, err := rz.Children(ctx, o.root)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Info
	for _, name := range names {
		st, _, cver, err := read(ctx, rz, o.root+"/"+name)
		if errors.Is(err, zk.ErrNoNode) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st.info(name, cver))
	}
	return out, nil
}

// read returns the sequence at path, its znode's version and, in
// ModeCounter, its counter's version (0 otherwise). A counter read after
// a new incarnation replaced it is read again with the new state: the
// version must be the counter's of that very state. A counter missing
// under an unchanged znode (deleted by hand) is ErrCorrupt.
func read(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (state, int32, int32, error) {
	var last *zk.Stat
	for {
		data, stat, err := rz.Get(ctx, path)
		if err != nil {
			return state{}, 0, 0, err
		}
		st, err := decodeState(data)
		if err != nil {
			return state{}, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		if !st.counter() {
			return st, stat.Version, 0, nil
		}
		ok, cstat, err := rz.Exists(ctx, st.marker(path))
		if err != nil {
			return state{}, 0, 0, err
		}
		if ok {
			return st, stat.Version, cstat.Version, nil
		}
		if last != nil && last.Mzxid == stat.Mzxid {
			return state{}, 0, 0, fmt.Errorf("%s: %w: its counter %s is missing", path, ErrCorrupt, st.marker(path))
		}
		last = stat
	}
}

// info is the sequence as List shows it, its counter at cver.
func (s state) info(name string, cver int32) Info {
	return Info{Name: name, Mode: s.Mode, Next: s.nextAt(cver), Limit: s.Limit}
}

func newToken() string { return fmt.Sprintf("%016x", rand.Uint64()) }
