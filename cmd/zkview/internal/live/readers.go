package live

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
	"zkspeaker/znodemonitor"
)

// retryPause is how long a reader waits before it reads again after a
// failed read: the session's own retries have been spent by then, and the
// panel says why it is stale meanwhile.
const retryPause = time.Second

// readFunc reads one panel, hands it to the hub, and returns the watch that
// fires at the panel's next change. notified is when the notification
// behind this read arrived, zero for the first read.
type readFunc func(ctx context.Context, notified time.Time) (<-chan zk.Event, error)

// follow reads with read after every notification of its watch, until ctx
// ends: ZooKeeper's watches, not a timer, drive every panel. A failed read
// is shown with fail and tried again after retryPause; an expired session
// fires every watch (go-zookeeper sends EventNotWatching), so the panel is
// read again on the new session.
func follow(ctx context.Context, read readFunc, fail func(error)) {
	var notified time.Time
	for {
		wake, err := read(ctx, notified)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			fail(err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryPause):
			}
			notified = time.Time{}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
			notified = time.Now()
		}
	}
}

// followLine follows a sequential election at p.Path, and asks the
// servers who watches whom after each change.
func (h *Hub) followLine(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel, poke func()) {
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, wake, err := nodemonitor.Inspect(ctx, rz, p.Path)
		if err != nil {
			return nil, err
		}
		var znodes []string
		for _, seat := range v.Seats {
			znodes = append(znodes, p.Path+"/"+seat.Name)
		}
		var made map[string]float64
		if notified.IsZero() {
			made = madeAt(ctx, rz, znodes)
		}
		h.update(notified, "sequential "+p.Path, func(pp *parts) {
			pp.election, pp.electionPanel = &v, p
			keepMade(pp, p.Path, znodes, made)
		})
		poke()
		return wake, nil
	}, func(err error) {
		h.update(time.Time{}, "sequential "+p.Path, func(pp *parts) {
			pp.electionPanel = p
			pp.electionPanel.Err = err.Error()
			if pp.election == nil {
				pp.election = &nodemonitor.View{Path: p.Path}
			}
		})
	})
}

// keepMade forgets the creation times of the znodes under base that left,
// those not standing, and adds made, the times a first look read.
func keepMade(pp *parts, base string, standing []string, made map[string]float64) {
	maps.DeleteFunc(pp.made, func(z string, _ float64) bool {
		return strings.HasPrefix(z, base+"/") && !slices.Contains(standing, z)
	})
	maps.Copy(pp.made, made)
}

// followSingle follows a single-file election's znode.
func (h *Hub) followSingle(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel, poke func()) {
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		holder, wake, err := znodemonitor.Inspect(ctx, rz, p.Path)
		if err != nil {
			return nil, err
		}
		var made map[string]float64
		if notified.IsZero() && holder.Held {
			made = madeAt(ctx, rz, []string{p.Path})
		}
		h.update(notified, "single-file "+p.Path, func(pp *parts) {
			pp.single, pp.singlePanel = &holder, p
			delete(pp.made, p.Path) // the znode of a holder that may have gone since
			maps.Copy(pp.made, made)
		})
		poke()
		return wake, nil
	}, func(err error) {
		h.update(time.Time{}, "single-file "+p.Path, func(pp *parts) {
			pp.singlePanel = p
			pp.singlePanel.Err = err.Error()
			if pp.single == nil {
				pp.single = &znodemonitor.Holder{Path: p.Path}
			}
		})
	})
}

// followGroup follows a group's members: the children of its znode.
func (h *Hub) followGroup(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel) {
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		names, exists, wake, err := children(ctx, rz, p.Path)
		if err != nil {
			return nil, err
		}
		g := &Group{Panel: p, Members: names}
		g.Exists = exists
		h.update(notified, "group "+p.Path, func(pp *parts) { pp.group = g })
		return wake, nil
	}, func(err error) {
		h.update(time.Time{}, "group "+p.Path, func(pp *parts) {
			g := &Group{Panel: p, Members: []string{}}
			if pp.group != nil {
				g.Members, g.Exists = pp.group.Members, pp.group.Exists
			}
			g.Err = err.Error()
			pp.group = g
		})
	})
}

// children lists the children of path, sorted, and leaves a watch for the
// next change of the list, or for the path's creation when it is missing.
func children(ctx context.Context, rz *recoverable.RecoverableZookeeper, path string) ([]string, bool, <-chan zk.Event, error) {
	names, exists, wake, err := rz.ChildrenOrCreationW(ctx, path)
	if err != nil || !exists {
		return []string{}, false, wake, err
	}
	slices.Sort(names)
	return names, true, wake, nil
}

// madeAt reads when each znode was made (its ctime, in Unix milliseconds),
// for candidates found in line by a look that no notification caused:
// they joined then, not when zkview looked. A znode that went meanwhile is
// left out.
func madeAt(ctx context.Context, rz *recoverable.RecoverableZookeeper, znodes []string) map[string]float64 {
	made := map[string]float64{}
	for _, z := range znodes {
		if ok, st, err := rz.Exists(ctx, z); err == nil && ok {
			made[z] = float64(st.Ctime)
		}
	}
	return made
}
