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
// its limit, its deletion (in ModeCounter, a watch on the znode and one
// on its counter, and the channel fires at the first). It only reads, as a live view of the service
// needs. A missing znode is ErrNotFound, and leaves no watch: one would
// stay on the server until a sequence of that name is made, and
// go-zookeeper cannot remove it, so a follower of names that come and go
// would pile them up. Watch the root's children to learn of a new one.
func Inspect(ctx context.Context, rz *recoverable.RecoverableZookeeper, znodePath string) (Info, <-chan zk.Event, error) {
	info := Info{Name: path.Base(znodePath)}
	data, _, wake, err := rz.GetW(ctx, znodePath)
	if errors.Is(err, zk.ErrNoNode) {
		return info, nil, ErrNotFound
	}
	if err != nil {
		return info, nil, err
	}
	st, err := decodeState(data)
	if err != nil {
		return info, wake, err
	}
	if !st.counter() {
		return st.info(info.Name, 0), wake, nil
	}
	// The workers write the counter: its watch fires at each ID handed
	// out, the znode's at each raise. Either wakes the caller.
	_, cstat, counted, err := rz.GetW(ctx, st.marker(znodePath))
	if err != nil {
		return st.info(info.Name, 0), wake, err
	}
	either := make(chan zk.Event, 1)
	go func() {
		select {
		case ev := <-wake:
			either <- ev
		case ev := <-counted:
			either <- ev
		}
	}()
	return st.info(info.Name, cstat.Version), either, nil
}
