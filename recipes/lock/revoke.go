package lock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// Holder is a contender that Revoke asked to let go.
type Holder struct {
	// Node is the path of its znode; it is gone once the holder let go.
	Node string
	// Name is the contender's name, as its znode holds it.
	Name string
	// Already is true when its znode carried a revoke mark before this
	// request: someone asked first.
	Already bool
}

// RevokeOption configures Revoke.
type RevokeOption func(*revokeOptions)

type revokeOptions struct{ by string }

// RequestedBy names who asks, in the mark: the holder's log says it.
func RequestedBy(who string) RevokeOption { return func(o *revokeOptions) { o.by = who } }

// Revoke asks the holders of the lock at path to let go, as the ZooKeeper
// website's revocable locks do: it marks each holder's znode (MarkRevoke),
// which the holder watches. A Lock made with Revocable lets go (Revoked
// closes); one made with Irrevocable logs the request and holds on; any
// other does not look. The holders are the write lock's holder, the
// readers that hold together, or a semaphore's lease holders: whoever the
// line's rule lets hold now, not the waiters. It returns whom it asked,
// none when nobody holds (with an error, those asked before it); a holder
// that let go while asked is left out, and when all did, it asks those
// that hold after them. It only asks: AwaitRelease waits for the answer.
func Revoke(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string, opts ...RevokeOption) ([]Holder, error) {
	var o revokeOptions
	for _, opt := range opts {
		opt(&o)
	}
	for {
		nodes, err := holders(ctx, rz, path)
		if err != nil {
			return nil, fmt.Errorf("lock: revoke %s: %w", path, err)
		}
		var asked []Holder
		for _, node := range nodes {
			h, err := mark(ctx, rz, node, o.by)
			if errors.Is(err, zk.ErrNoNode) {
				continue // it let go meanwhile
			}
			if err != nil {
				return asked, fmt.Errorf("lock: revoke %s: %w", path, err)
			}
			asked = append(asked, h)
		}
		if len(asked) > 0 || len(nodes) == 0 {
			return asked, nil
		}
		// Every holder we listed let go before we asked: the lock passed
		// on to whoever stood behind them, if anyone. Look again, rather
		// than say that nobody holds.
	}
}

// AwaitRelease waits until the znode of each holder is gone, as a holder
// that lets go deletes it (or its session ended), or until ctx is done.
// It returns the holders whose znodes still stood when ctx ended, none
// when all let go; its error is a failure to ask ZooKeeper, not ctx's.
func AwaitRelease(ctx context.Context, rz *recoverable.RecoverableZookeeper, hs []Holder) ([]Holder, error) {
	for i, h := range hs {
		for {
			ok, _, wake, err := rz.ExistsW(ctx, h.Node)
			if ctx.Err() != nil {
				return hs[i:], nil
			}
			if err != nil {
				return hs[i:], fmt.Errorf("lock: await %s: %w", h.Node, err)
			}
			if !ok {
				break
			}
			select {
			case <-wake:
			case <-ctx.Done():
				return hs[i:], nil
			}
		}
	}
	return nil, nil
}

// mark sets the revoke mark on node with a compare-and-set on the version
// it read: a holder's data changes only by a mark, so a lost race is
// another requester's mark, which the next read finds.
func mark(ctx context.Context, rz *recoverable.RecoverableZookeeper, node, by string) (Holder, error) {
	for {
		data, st, err := rz.Get(ctx, node)
		if err != nil {
			return Holder{}, err
		}
		name, _, marked := ReadMark(data)
		h := Holder{Node: node, Name: name, Already: marked}
		if marked {
			return h, nil
		}
		_, err = rz.Set(ctx, node, MarkRevoke(data, by), st.Version)
		if !errors.Is(err, zk.ErrBadVersion) {
			return h, err
		}
	}
}

// holders lists the znodes of the lock's holders at path: for a semaphore
// (its path records leases=N) the first N leases, otherwise the
// contenders that the readers' and writers' rules let hold (Standing).
func holders(ctx context.Context, rz *recoverable.RecoverableZookeeper, root string) ([]string, error) {
	data, _, err := rz.Get(ctx, root)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dir, leases := root, 0
	if n, ok := recordedLeases(data); ok {
		dir, leases = root+"/"+leasesDir, n
	}
	children, err := rz.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	line := nodemonitor.Line(children)
	var out []string
	for i, c := range line {
		if hold, _ := Standing(line, i, leases); hold {
			out = append(out, dir+"/"+c.Name)
		}
	}
	return out, nil
}

// recordedLeases reads the number of leases a semaphore's path records
// (recordLeases writes it), if it records one.
func recordedLeases(data []byte) (int, bool) {
	s, ok := strings.CutPrefix(string(data), leasesRecord)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}
