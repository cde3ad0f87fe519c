package sequence

import (
	"context"
	"errors"
	"path"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// Inspect reads the sequence whose znode is at znodePath, and leaves a
// watch that fires at its next change: each ID handed out, each raise of
// its limit, its deletion. It only reads, as a live view of the service
// needs; a missing znode is ErrNotFound, with a watch for its creation.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, znodePath string) (Info, <-chan zk.Event, error) {
	info := Info{Name: path.Base(znodePath)}
	for {
		data, _, wake, err := rz.GetW(ctx, znodePath)
		if errors.Is(err, zk.ErrNoNode) {
			ok, _, wake, err := rz.ExistsW(ctx, znodePath)
			if err != nil {
				return info, nil, err
			}
			if ok {
				continue // created between the two calls
			}
			return info, wake, ErrNotFound
		}
		if err != nil {
			return info, nil, err
		}
		st, err := decodeState(data)
		if err != nil {
			return info, wake, err
		}
		info.Next, info.Limit = st.Next, st.Limit
		return info, wake, nil
	}
}
