package znodemonitor

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// Holder is who holds the single-file election's znode, as ZooKeeper sees
// it: what `speaker status --election single-file` prints.
type Holder struct {
	Path string
	// Held is false when nobody holds the znode at this moment.
	Held bool
	// Data is the holder's process name.
	Data string
	// Owner is the holder's session.
	Owner int64
	// Czxid is the transaction that created the znode: the holder's epoch.
	Czxid int64
}

// Inspect reads the znode at path and leaves a watch that fires when it is
// created, changed or deleted: every change of leader.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) (Holder, <-chan zk.Event, error) {
	for {
		ok, _, wake, err := rz.ExistsW(ctx, path)
		if err != nil || !ok {
			return Holder{Path: path}, wake, err
		}
		data, st, err := rz.Get(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			continue // released between the two calls; the watch fired
		}
		if err != nil {
			return Holder{Path: path}, nil, err
		}
		return Holder{Path: path, Held: true, Data: string(data), Owner: st.EphemeralOwner, Czxid: st.Czxid}, wake, nil
	}
}
