package group

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// deleteAttempts bounds Delete's tries when the membership changes between
// its read and its multi. Each retry costs two round trips, and members do
// not join many times a second, so running out means something keeps
// joining in a loop.
const deleteAttempts = 10

// testHookBeforeMulti, when set by a test, runs between Delete's read of the
// members and its multi: the window in which a member can join or leave.
var testHookBeforeMulti func(attempt int)

// Delete removes the group and all its members at once, and returns the
// members it removed, sorted. It returns ErrNoGroup when there is no group.
//
// The chapter's DeleteGroup deletes each member, then the group, one request
// at a time. That is not atomic: a member that joins between the deletes
// makes the last one fail with NotEmpty, leaving a group with some of its
// members gone, and a reader in between sees a group half deleted. Delete
// instead reads the members and sends one multi that deletes each of them,
// then the group: ZooKeeper applies all of it or none. If the membership
// changed since the read (a member joined: the group's delete meets
// NotEmpty; one left: its delete meets NoNode), the whole multi fails,
// nothing is deleted, and Delete reads again and retries, a bounded number
// of times (ErrBusy).
func (g *Group) Delete(ctx context.Context) ([]string, error) {
	lost := false // a multi whose reply never came may have deleted the group
	var sent []string
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			// A read from a follower may lag the leader, which applies the
			// multi: catch up, or the retry may fail the same way.
			if err := g.rz.Sync(ctx, g.path); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return nil, fmt.Errorf("group: delete %s: %w", g.path, err)
			}
		}
		members, err := g.rz.Children(ctx, g.path)
		if errors.Is(err, zk.ErrNoNode) {
			if lost {
				g.log.Info("the group is gone after a multi whose reply was lost: it was ours", "group", g.path)
				return sent, nil
			}
			return nil, fmt.Errorf("%w: %s", ErrNoGroup, g.path)
		}
		if err != nil {
			return nil, fmt.Errorf("group: delete %s: %w", g.path, err)
		}
		sort.Strings(members)
		ops := make([]any, 0, len(members)+1)
		for _, m := range members {
			ops = append(ops, &zk.DeleteRequest{Path: g.member(m), Version: -1})
		}
		ops = append(ops, &zk.DeleteRequest{Path: g.path, Version: -1})
		if testHookBeforeMulti != nil {
			testHookBeforeMulti(attempt)
		}
		res, err := g.multi(ctx, ops)
		if err == nil {
			return members, nil
		}
		if recoverable.IsRetryable(err) {
			// Unknown outcome: the next read tells.
			lost, sent = true, members
		} else {
			failed, cause := failedOp(res, err)
			switch {
			case errors.Is(cause, zk.ErrNotEmpty) && failed >= 0 && failed < len(members):
				return nil, reason.New(ErrNotMember, "", "%s has children of its own; delete it first", g.member(members[failed]))
			case errors.Is(cause, zk.ErrNotEmpty), errors.Is(cause, zk.ErrNoNode):
				g.log.Info("the membership changed while deleting; nothing was deleted, reading it again",
					"group", g.path, "attempt", attempt, "error", cause)
			default:
				return nil, fmt.Errorf("group: delete %s: %w", g.path, cause)
			}
		}
		if attempt == deleteAttempts {
			return nil, fmt.Errorf("%w: %s after %d attempts", ErrBusy, g.path, attempt)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
		}
	}
}

// multi sends ops as one multi, and returns when it is answered or ctx is
// done. go-zookeeper's Multi takes no context and recoverable does not wrap
// it; an abandoned call still ends, when the server answers or the
// connection drops.
func (g *Group) multi(ctx context.Context, ops []any) ([]zk.MultiResponse, error) {
	type result struct {
		res []zk.MultiResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := g.rz.Conn().Multi(ops...)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// failedOp returns the index of the op that failed a multi, and its error.
// The server fails every op of a failed multi: the culprit with its own
// error, the others with OK or a runtime inconsistency, which go-zookeeper
// knows no name for ("unknown error: -2"). -1 means no op is to blame.
func failedOp(res []zk.MultiResponse, err error) (int, error) {
	for i, r := range res {
		if r.Error != nil && !strings.HasPrefix(r.Error.Error(), "unknown error") {
			return i, r.Error
		}
	}
	return -1, err
}
