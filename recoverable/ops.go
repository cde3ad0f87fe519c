package recoverable

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// call runs one attempt of op, but returns as soon as ctx is done or the
// client is closed. go-zookeeper's calls take no context; an abandoned call
// still ends on its own, when the server answers or the connection drops.
func call[T any](ctx context.Context, r *RecoverableZookeeper, op func() (T, error)) (T, error) {
	if err := r.ready(ctx); err != nil {
		var zero T
		return zero, err
	}
	return await(ctx, r, async(op))
}

// ready waits until a request may be sent: the client is open, ctx is
// live, and the credentials, if any, are with go-zookeeper.
func (r *RecoverableZookeeper) ready(ctx context.Context) error {
	if r.closed() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-r.authReady:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-r.quit:
		return ErrClosed
	}
}

// result is what a go-zookeeper call returned.
type result[T any] struct {
	v   T
	err error
}

// async runs op on a goroutine of its own; its result comes on the channel.
func async[T any](op func() (T, error)) <-chan result[T] {
	done := make(chan result[T], 1)
	go func() {
		v, err := op()
		done <- result[T]{v, err}
	}()
	return done
}

// await waits for the result of an async call, or for ctx, or for Close.
// A call that failed because the client closed says so (ErrClosed).
func await[T any](ctx context.Context, r *RecoverableZookeeper, done <-chan result[T]) (T, error) {
	var zero T
	select {
	case res := <-done:
		if res.err != nil && r.closed() {
			return zero, fmt.Errorf("%w: %w", ErrClosed, res.err)
		}
		return res.v, res.err
	case <-ctx.Done():
		abandon(r, done) // Settle waits for it
		return zero, ctx.Err()
	case <-r.quit:
		return zero, ErrClosed
	}
}

// wrap names the operation and path in an error, keeping it testable with
// errors.Is.
func wrap(name, path string, err error) error {
	if err == nil || errors.Is(err, ErrRetriesExhausted) {
		return err
	}
	return fmt.Errorf("%s %s: %w", name, path, err)
}

// Exists reports whether path exists, with its Stat.
func (r *RecoverableZookeeper) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	type res struct {
		ok   bool
		stat *zk.Stat
	}
	v, _, err := retry(ctx, r, "exists", path, func() (res, error) {
		ok, st, err := r.conn.Exists(path)
		return res{ok, st}, err
	})
	return v.ok, v.stat, wrap("exists", path, err)
}

// ExistsOnce is Exists without retries: one round trip that either answers
// before ctx's deadline or fails. It is for checks that are only worth
// anything when fresh, such as a leader confirming itself before it writes.
func (r *RecoverableZookeeper) ExistsOnce(ctx context.Context, path string) (bool, *zk.Stat, error) {
	type res struct {
		ok   bool
		stat *zk.Stat
	}
	v, err := call(ctx, r, func() (res, error) {
		ok, st, err := r.conn.Exists(path)
		return res{ok, st}, err
	})
	return v.ok, v.stat, wrap("exists", path, err)
}

// ExistsW is Exists that also sets a watch, which fires once when path is
// created, deleted or changed.
func (r *RecoverableZookeeper) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	type res struct {
		ok   bool
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	v, _, err := retry(ctx, r, "exists", path, func() (res, error) {
		ok, st, ch, err := r.conn.ExistsW(path)
		return res{ok, st, ch}, err
	})
	return v.ok, v.stat, v.ch, wrap("exists", path, err)
}

// Get returns the data and Stat of path.
func (r *RecoverableZookeeper) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	type res struct {
		data []byte
		stat *zk.Stat
	}
	v, _, err := retry(ctx, r, "get", path, func() (res, error) {
		data, st, err := r.conn.Get(path)
		return res{data, st}, err
	})
	return v.data, v.stat, wrap("get", path, err)
}

// GetACL returns path's ACL, with its Stat.
func (r *RecoverableZookeeper) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	type res struct {
		acl  []zk.ACL
		stat *zk.Stat
	}
	v, _, err := retry(ctx, r, "getACL", path, func() (res, error) {
		acl, st, err := r.conn.GetACL(path)
		return res{acl, st}, err
	})
	return v.acl, v.stat, wrap("getACL", path, err)
}

// GetW is Get that also sets a watch on path's data and existence.
func (r *RecoverableZookeeper) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	type res struct {
		data []byte
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	v, _, err := retry(ctx, r, "get", path, func() (res, error) {
		data, st, ch, err := r.conn.GetW(path)
		return res{data, st, ch}, err
	})
	return v.data, v.stat, v.ch, wrap("get", path, err)
}

// Set writes data to path if its version matches (-1 matches any). Like
// HBase, a retried set that meets bad-version is reported as such, wrapped
// in ErrRetried as well: the first attempt may be the write that changed
// the version, and only the caller, who knows the data, can tell.
func (r *RecoverableZookeeper) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	st, attempts, err := retry(ctx, r, "set", path, func() (*zk.Stat, error) {
		return r.conn.Set(path, data, version)
	})
	return st, wrap("set", path, retried(attempts, err))
}

// Multi runs ops as one transaction: all of them or none (go-zookeeper's
// *zk.CreateRequest, *zk.DeleteRequest, *zk.SetDataRequest and
// *zk.CheckVersionRequest). A retried multi that fails is wrapped in
// ErrRetried too: the lost attempt may have applied.
func (r *RecoverableZookeeper) Multi(ctx context.Context, ops ...any) ([]zk.MultiResponse, error) {
	res, attempts, err := retry(ctx, r, "multi", "", func() ([]zk.MultiResponse, error) {
		return r.conn.Multi(ops...)
	})
	return res, wrap("multi", "", retried(attempts, err))
}

// Children returns the names of path's children.
func (r *RecoverableZookeeper) Children(ctx context.Context, path string) ([]string, error) {
	v, _, err := retry(ctx, r, "children", path, func() ([]string, error) {
		children, _, err := r.conn.Children(path)
		return children, err
	})
	return v, wrap("children", path, err)
}

// ChildrenW is Children that also sets a watch, which fires once when a
// child is added or removed.
func (r *RecoverableZookeeper) ChildrenW(ctx context.Context, path string) ([]string, <-chan zk.Event, error) {
	type res struct {
		children []string
		ch       <-chan zk.Event
	}
	v, _, err := retry(ctx, r, "children", path, func() (res, error) {
		children, _, ch, err := r.conn.ChildrenW(path)
		return res{children, ch}, err
	})
	return v.children, v.ch, wrap("children", path, err)
}

// Delete removes path if its version matches (-1 matches any). A delete
// that is retried after a connection loss and then finds no node counts as
// done: the lost attempt is the one that removed it.
func (r *RecoverableZookeeper) Delete(ctx context.Context, path string, version int32) error {
	return r.deleteWhile(ctx, path, version, nil)
}

// DeleteOwn deletes path, an ephemeral znode of session, if its version
// matches. Unlike Delete, it is not sent again once the client holds
// another session: the znode went with its session, and a znode now at a
// shared path (the single-file election's) is someone else's, whatever its
// version says, as a re-created znode starts at version 0 again.
func (r *RecoverableZookeeper) DeleteOwn(ctx context.Context, path string, version int32, session int64) error {
	return r.deleteWhile(ctx, path, version, func() bool { return r.SessionID() == session })
}

// errSessionGone ends deleteWhile's attempts.
var errSessionGone = errors.New("recoverable: the session changed")

// deleteWhile is Delete, each attempt made only while still() holds (nil:
// always); once it does not, there is nothing of ours left to delete.
func (r *RecoverableZookeeper) deleteWhile(ctx context.Context, path string, version int32, still func() bool) error {
	_, attempts, err := retry(ctx, r, "delete", path, func() (struct{}, error) {
		if still != nil && !still() {
			return struct{}{}, errSessionGone
		}
		return struct{}{}, r.conn.Delete(path, version)
	})
	if errors.Is(err, errSessionGone) || (attempts > 1 && errors.Is(err, zk.ErrNoNode)) {
		return nil
	}
	return wrap("delete", path, err)
}

// Sync makes the server this client talks to catch up with the leader, so
// that the next read sees every write committed before it.
func (r *RecoverableZookeeper) Sync(ctx context.Context, path string) error {
	_, _, err := retry(ctx, r, "sync", path, func() (string, error) {
		return r.conn.Sync(path)
	})
	return wrap("sync", path, err)
}

// ChildrenOrCreationW lists path's children with a watch on the list, as
// ChildrenW does; when path does not exist, it reports so (exists false,
// no children) with a watch that fires when path is made. Readers that
// follow a znode which may come and go (a recipe's inspect, zkview) need
// a watch either way; a path made between the two reads is listed again.
func (r *RecoverableZookeeper) ChildrenOrCreationW(ctx context.Context, path string) (children []string, exists bool, wake <-chan zk.Event, err error) {
	for {
		children, wake, err := r.ChildrenW(ctx, path)
		if !errors.Is(err, zk.ErrNoNode) {
			return children, err == nil, wake, err
		}
		ok, _, wake, err := r.ExistsW(ctx, path)
		if err != nil {
			return nil, false, nil, err
		}
		if !ok {
			return nil, false, wake, nil
		}
	}
}
