package sequence

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrExists is returned by Create for a sequence that exists already.
var ErrExists = errors.New("sequence: exists already")

// Create makes the sequence name, whose first ID will be start. Its limit
// starts at start too: no ID is handed out until a persistence leader has
// stored a reservation and raised the limit.
func Create(ctx context.Context, rz *recoverable.RecoverableZookeeper, name string, start int64, opts ...Option) error {
	o, err := newOptions(opts)
	if err != nil {
		return err
	}
	if err := ValidateName(name); err != nil {
		return err
	}
	if start < 0 {
		return fmt.Errorf("%w: start %d: want 0 or more", ErrInvalid, start)
	}
	if err := rz.EnsurePath(ctx, o.root, zk.WorldACL(zk.PermAll)); err != nil {
		return err
	}
	st := state{Next: start, Limit: start, Incarnation: newToken()}.written(newToken())
	_, err = rz.Create(ctx, o.root+"/"+name, st.encode(), zk.WorldACL(zk.PermAll))
	if errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("%w: %q", ErrExists, name)
	}
	return err
}

// Delete removes the sequence name. Its reservation stays in the Store:
// Restore would bring it back.
func Delete(ctx context.Context, rz *recoverable.RecoverableZookeeper, name string, opts ...Option) error {
	o, err := newOptions(opts)
	if err != nil {
		return err
	}
	if err := ValidateName(name); err != nil {
		return err
	}
	err = rz.Delete(ctx, o.root+"/"+name, -1)
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return err
}

// Info is one sequence as List sees it.
type Info struct {
	Name  string
	Next  int64 // the next ID to hand out
	Limit int64 // IDs below it may be handed out
}

// List returns every sequence, by name.
func List(ctx context.Context, rz *recoverable.RecoverableZookeeper, opts ...Option) ([]Info, error) {
	o, err := newOptions(opts)
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
		data, _, err := rz.Get(ctx, o.root+"/"+name)
		if errors.Is(err, zk.ErrNoNode) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		st, err := decodeState(data)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", o.root, name, err)
		}
		out = append(out, Info{Name: name, Next: st.Next, Limit: st.Limit})
	}
	return out, nil
}

func newToken() string { return fmt.Sprintf("%016x", rand.Uint64()) }
