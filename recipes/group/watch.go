package group

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// Change is one reading of a group's membership that differs from the one
// before.
type Change struct {
	// At is when the reading was taken.
	At time.Time
	// Members are the members after the change, sorted.
	Members []string
	// Joined and Left are the members that came and went since the last
	// reading, sorted. In the first Change, Joined is everyone.
	Joined, Left []string
	// First marks the first reading.
	First bool
	// Deleted means the group itself is gone; Left names who was in it.
	// It is the last Change.
	Deleted bool
}

// Watcher follows a group's membership: the watch the chapter's ListGroup
// leaves unused. A children watch fires once, so after each notification
// the Watcher reads the members again and sets a new watch in the same
// call; what changed between the notification and the read is in that read.
type Watcher struct {
	g       *Group
	changes chan Change
	cancel  context.CancelFunc
	done    chan struct{}
	err     error // written before done closes
	once    sync.Once
}

// Watch starts following the group. Read Changes until it closes, then
// Err; Close stops the Watcher early.
func (g *Group) Watch() *Watcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watcher{g: g, changes: make(chan Change), cancel: cancel, done: make(chan struct{})}
	go w.run(ctx)
	return w
}

// Changes returns the channel of changes. It carries the first reading,
// then every change. A change in the middle of a disconnection comes when
// the connection does (go-zookeeper sets the watch again and the server
// fires it); after a session expiry the Watcher reads again on the new
// session. Joins and leaves that cancel out between two readings are not
// seen: a watch tells that something changed, not each step. The channel
// closes after a Deleted change, on Close, or when the Watcher fails (Err).
func (w *Watcher) Changes() <-chan Change { return w.changes }

// Done is closed when the Watcher has ended, as Changes is: Err says why.
// Changes, Done and Err are the group's change stream, as Observe, Done and
// Err are a Member's and a monitor's; Close ends it.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// Err returns why Changes closed: ErrNoGroup when there was no group to
// begin with, recoverable.ErrClosed when the client was closed, or a fault
// that a retry could not cure. It is nil after a Deleted change or Close,
// and while the Watcher runs.
func (w *Watcher) Err() error {
	select {
	case <-w.done:
		return w.err
	default:
		return nil
	}
}

// Close stops the Watcher and waits for its goroutine. It is safe to call
// more than once.
func (w *Watcher) Close() {
	w.once.Do(w.cancel)
	<-w.done
}

// run is the Watcher's goroutine: read and watch, wait, read again.
func (w *Watcher) run(ctx context.Context) {
	// done first: whoever sees Changes closed may call Err at once.
	defer close(w.changes)
	defer close(w.done)
	// Ending on its own (a deletion, Err), run must end its observer too.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	rz := w.g.rz
	sessions := rz.Observe(ctx)
	var last []string
	first := true
	wait := 100 * time.Millisecond
	var lastRead int64 // the session of the last reading
	for {
		read := rz.SessionID()
		if !first && read != lastRead {
			w.sync(ctx, read)
		}
		members, watch, err := rz.ChildrenW(ctx, w.g.path)
		switch {
		case err == nil:
			wait = 100 * time.Millisecond
		case ctx.Err() != nil:
			return
		case errors.Is(err, zk.ErrNoNode) && first:
			w.err = fmt.Errorf("%w: %s", ErrNoGroup, w.g.path)
			return
		case errors.Is(err, zk.ErrNoNode):
			w.send(ctx, Change{At: time.Now(), Left: last, Deleted: true})
			return
		case errors.Is(err, recoverable.ErrClosed), errors.Is(err, zk.ErrNoAuth):
			w.err = fmt.Errorf("group: watch %s: %w", w.g.path, err)
			return
		default:
			// The session expired under the read, or the retries ran out
			// while ZooKeeper was away: read again a little later.
			w.g.log.Warn("could not read the group; trying again", "group", w.g.path, "in", wait, "error", err)
			if !sleep(ctx, wait) {
				return
			}
			wait = min(2*wait, 2*time.Second)
			continue
		}
		sort.Strings(members)
		joined, left := diff(last, members)
		if first || len(joined)+len(left) > 0 {
			if !w.send(ctx, Change{At: time.Now(), Members: members, Joined: joined, Left: left, First: first}) {
				return
			}
		}
		last, first, lastRead = members, false, read
		if !w.await(ctx, sessions, watch, read) {
			return
		}
	}
}

// sync makes the server of a new session catch up with the leader before
// the Watcher reads there: go-zookeeper forgets the last zxid it saw when a
// session expires, so the new session may land on a follower behind what
// the Watcher already reported, and the diff would then report a member
// who left as joined again. A failed sync is not fatal: the read that
// follows meets the same fault and is retried.
func (w *Watcher) sync(ctx context.Context, session int64) {
	w.g.log.Info("new session: making its server catch up before reading the group again",
		"group", w.g.path, "session", fmt.Sprintf("0x%x", session))
	if err := w.g.rz.Sync(ctx, w.g.path); err != nil {
		w.g.log.Debug("sync before the read failed", "group", w.g.path, "error", err)
	}
}

// await waits for a reason to read again: the watch fired (a child came or
// went, the group was deleted, or the session that set the watch ended), or
// the client holds a session other than the one that read.
func (w *Watcher) await(ctx context.Context, sessions <-chan recoverable.SessionEvent, watch <-chan zk.Event, read int64) bool {
	for {
		select {
		case <-ctx.Done():
			return false
		case <-watch:
			return true
		case ev, ok := <-sessions:
			if !ok {
				w.err = fmt.Errorf("group: watch %s: %w", w.g.path, recoverable.ErrClosed)
				return false
			}
			if ev.State == recoverable.StateConnected && ev.SessionID != read {
				return true
			}
		}
	}
}

// send hands c to the reader, unless the Watcher is closed first.
func (w *Watcher) send(ctx context.Context, c Change) bool {
	select {
	case w.changes <- c:
		return true
	case <-ctx.Done():
		return false
	}
}

// diff returns what is in now and not in before, and the other way round;
// both are sorted.
func diff(before, now []string) (joined, left []string) {
	was := make(map[string]bool, len(before))
	for _, m := range before {
		was[m] = true
	}
	for _, m := range now {
		if !was[m] {
			joined = append(joined, m)
		}
		delete(was, m)
	}
	for _, m := range before {
		if was[m] {
			left = append(left, m)
		}
	}
	return joined, left
}

// sleep waits d, or less if ctx is done first; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
