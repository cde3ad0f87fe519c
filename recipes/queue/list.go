package queue

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrNoQueue means the queue's znode does not exist.
var ErrNoQueue = errors.New("queue: no such queue")

// List returns the items of the queue at path in the order Take would
// return them, with their values and whether a consumer holds a claim on
// them. It needs no handle, and writes nothing. The answer is a snapshot:
// items may be put and taken while it is read.
func List(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) ([]Entry, error) {
	if err := recoverable.ValidatePath("path", path); err != nil {
		return nil, err
	}
	children, err := rz.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, fmt.Errorf("%w: %s", ErrNoQueue, path)
	}
	if err != nil {
		return nil, fmt.Errorf("queue: list %s: %w", path, err)
	}
	var out []Entry
	for _, name := range items(children) {
		data, st, err := rz.Get(ctx, path+"/"+name)
		if errors.Is(err, zk.ErrNoNode) {
			continue // taken while we read
		}
		if err != nil {
			return nil, fmt.Errorf("queue: list %s: %w", path, err)
		}
		priority, seq, _ := parseName(name)
		out = append(out, Entry{Name: name, Priority: priority, Seq: seq, Value: data, Claimed: st.NumChildren > 0})
	}
	return out, nil
}

// Ledgers returns the names of the ledgers under the queue at path: one
// for each handle open on it, and one for each handle gone without Close
// (killed) that no open handle has reaped yet. A handle's reaper deletes
// such a ledger once it has been without its owner's session marker for a
// grace of the owner's session timeout; see README.md.
func Ledgers(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) ([]string, error) {
	children, err := rz.Children(ctx, path+"/"+ledgersDir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("queue: list the ledgers of %s: %w", path, err)
	}
	var out []string
	for _, c := range children {
		if _, _, ok := parseName(c); !ok {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out, nil
}
