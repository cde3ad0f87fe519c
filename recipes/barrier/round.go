package barrier

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// The double barrier's znodes under its path: the members, ephemeral and
// sequential with protected names ("_c_<GUID>-member-0000000007"), and
// the page's ready znode, persistent, made by the member that counts N.
//
// The page's barrier is good for one round: its ready znode stays, and a
// process that comes later walks straight through. Here the ready znode
// holds the sequence number of the last member of its round, so a later
// member knows it is not of that round and waits for the round to end;
// the last member out removes it; and should every member of a round die
// instead, the next round's members remove it once none is left.
//
// Opening and closing a round are multis that also set the barrier's
// znode, at the version read before the decision: the version counts the
// rounds' openings and closings, so that a decision taken on an old
// reading fails (bad version), and is taken again, rather than removing a
// newer round's ready znode (ZooKeeper's delete checks a version, and a
// new ready znode starts at version 0 again).
const (
	readyName    = "ready"
	memberPrefix = "member-"
)

// readyPath is the ready znode's path.
func (b *DoubleBarrier) readyPath() string { return b.path + "/" + readyName }

// record makes the barrier's znode, if missing, records our count in it,
// if it records none, and otherwise checks that it records ours.
func (b *DoubleBarrier) record(ctx context.Context) error {
	if err := b.rz.EnsurePath(ctx, b.path, b.rz.ACL()); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	for {
		data, st, err := b.rz.Get(ctx, b.path)
		if err != nil {
			return fmt.Errorf("barrier: %w", err)
		}
		if len(data) > 0 {
			return b.checkRecord(data)
		}
		_, err = b.rz.Set(ctx, b.path, []byte(recordOf(b.count)), st.Version)
		if err != nil && !errors.Is(err, zk.ErrBadVersion) {
			return fmt.Errorf("barrier: %w", err)
		}
		// Written, or another member wrote first: read again and compare.
	}
}

// checkRecord compares the barrier's record with our count.
func (b *DoubleBarrier) checkRecord(data []byte) error {
	if string(data) == recordOf(b.count) {
		return nil
	}
	recorded := string(data)
	if n, ok := cutCount(recorded); ok {
		recorded = n
	}
	return &CountError{Field: "count", Path: b.path, Count: b.count, Recorded: recorded}
}

// cutCount returns N of "count=N".
func cutCount(record string) (string, bool) {
	const p = "count="
	if len(record) > len(p) && record[:len(p)] == p {
		return record[len(p):], true
	}
	return "", false
}

// version reads the barrier's znode: the version that fences the next
// opening or closing of a round.
func (b *DoubleBarrier) version(ctx context.Context) (int32, error) {
	data, st, err := b.rz.Get(ctx, b.path)
	if err != nil {
		return 0, fmt.Errorf("barrier: %w", err)
	}
	if err := b.checkRecord(data); err != nil {
		return 0, err
	}
	return st.Version, nil
}

// readReady returns the last member's sequence number of the round whose
// ready znode exists, and false when there is none.
func (b *DoubleBarrier) readReady(ctx context.Context) (int64, bool, error) {
	data, _, err := b.rz.Get(ctx, b.readyPath())
	if errors.Is(err, zk.ErrNoNode) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("barrier: %w", err)
	}
	last, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("barrier: %s holds %q, not a member's sequence number", b.readyPath(), data)
	}
	return last, true, nil
}

// members lists the members under the barrier, by sequence number.
func (b *DoubleBarrier) members(ctx context.Context) ([]nodemonitor.Candidate, error) {
	children, err := b.rz.Children(ctx, b.path)
	if err != nil {
		return nil, fmt.Errorf("barrier: %w", err)
	}
	var out []nodemonitor.Candidate
	for _, c := range nodemonitor.Line(children) {
		if c.Kind == memberPrefix {
			out = append(out, c)
		}
	}
	return out, nil
}

// of returns the members of the round whose last member is last.
func of(members []nodemonitor.Candidate, last int64) []nodemonitor.Candidate {
	var out []nodemonitor.Candidate
	for _, m := range members {
		if m.Seq <= last {
			out = append(out, m)
		}
	}
	return out
}

// openRound creates the ready znode for the round whose last member is
// last, if the barrier's znode is still at version v.
func (b *DoubleBarrier) openRound(ctx context.Context, v int32, last int64) error {
	return b.fenced(ctx, v, &zk.CreateRequest{Path: b.readyPath(), Data: []byte(strconv.FormatInt(last, 10)), Acl: b.rz.ACL()})
}

// closeRound removes the ready znode, and the extra znodes, if the
// barrier's znode is still at version v.
func (b *DoubleBarrier) closeRound(ctx context.Context, v int32, extra ...string) error {
	ops := []any{&zk.DeleteRequest{Path: b.readyPath(), Version: -1}}
	for _, p := range extra {
		ops = append(ops, &zk.DeleteRequest{Path: p, Version: -1})
	}
	return b.fenced(ctx, v, ops...)
}

// fenced runs ops in one multi with a set of the barrier's znode at
// version v. A multi that fails does nothing: the caller reads again.
func (b *DoubleBarrier) fenced(ctx context.Context, v int32, ops ...any) error {
	all := append([]any{&zk.SetDataRequest{Path: b.path, Data: []byte(recordOf(b.count)), Version: v}}, ops...)
	res, err := b.rz.Multi(ctx, all...)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil, errors.Is(err, recoverable.ErrClosed), errors.Is(err, recoverable.ErrRetriesExhausted), errors.Is(err, zk.ErrNoAuth):
		return fmt.Errorf("barrier: %w", err)
	}
	for _, r := range res {
		if r.Error != nil && errors.Is(r.Error, zk.ErrNoAuth) {
			return fmt.Errorf("barrier: %w", r.Error)
		}
	}
	return fmt.Errorf("barrier: %w: %w", errChanged, err)
}

// errChanged is a fenced multi that failed: the barrier changed since it
// was read (or a retried multi's first attempt applied). Read again.
var errChanged = errors.New("the barrier changed; reading it again")
