package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// Why a take moves on to the next item.
var (
	errGone    = errors.New("queue: the item was taken by another")
	errClaimed = errors.New("queue: the item is claimed by another")
)

// Item is what Take returned: the item's name, priority, sequence number
// and value. Under AtLeastOnce it is claimed until Ack or Release.
type Item struct {
	Entry
	q       *Queue
	claim   string // the claim's path while it is held, else ""
	marker  string // the marker of the session that holds the claim
	session int64
}

// Take removes the first item of the queue and returns it, waiting while
// there is none; it returns ctx's error when ctx ends first.
//
// Under AtMostOnce the item is deleted before Take returns: no consumer
// gets it again, and one that dies before using it loses it. Under
// AtLeastOnce the item is claimed: an ephemeral znode under it stops other
// consumers, Ack deletes both, and a consumer that dies (its session ends)
// leaves it to the next Take.
//
// A take whose delete lost its reply is settled by the ledger: had another
// consumer taken the item, ours did not apply and Take goes on to the next.
// Every Take that returns an item won it alone.
func (q *Queue) Take(ctx context.Context) (*Item, error) {
list:
	for {
		children, err := q.rz.Children(ctx, q.path)
		if err != nil {
			return nil, fmt.Errorf("queue: take: %w", err)
		}
		names := items(children)
		claimed := ""
		for _, name := range names {
			it, err := q.takeOne(ctx, name)
			switch {
			case err == nil:
				return it, nil
			case errors.Is(err, errClaimed):
				if claimed == "" {
					claimed = name
				}
			case errors.Is(err, errGone):
			case errors.Is(err, errSessionMoved):
				// Our session changed: an earlier item's claim may have
				// gone with the old one. List again, not the next.
				continue list
			default:
				return nil, fmt.Errorf("queue: take %s: %w", name, err)
			}
		}
		if err := q.wait(ctx, names, claimed); err != nil {
			return nil, err
		}
	}
}

// takeOne tries to take the item called name, under the handle's mode.
func (q *Queue) takeOne(ctx context.Context, name string) (*Item, error) {
	end, err := q.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	if q.opts.delivery == AtLeastOnce {
		return q.claimOne(ctx, name)
	}
	it, err := q.read(ctx, name)
	if err != nil {
		return nil, err
	}
	if it.Claimed {
		return nil, errClaimed // spare the write: the delete would meet "not empty"
	}
	_, err = q.ledger.write(ctx, &zk.DeleteRequest{Path: q.item(name), Version: -1})
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, errGone
	case errors.Is(err, zk.ErrNotEmpty):
		return nil, errClaimed
	case err != nil:
		return nil, err
	}
	q.log.Debug("took an item", "item", name, "delivery", AtMostOnce)
	return it, nil
}

// claimOne claims the item called name for our session: an ephemeral
// child, whose create is recognised by its owner after a lost reply.
func (q *Queue) claimOne(ctx context.Context, name string) (*Item, error) {
	if q.held[name] {
		return nil, errClaimed // by us, for an earlier Take
	}
	marker, sid, err := q.ledger.sessionMarker()
	if err != nil {
		return nil, err
	}
	claim := q.item(name) + "/" + claimName
	_, err = q.rz.CreateEphemeral(ctx, claim, nil, q.acl)
	switch {
	case errors.Is(err, zk.ErrNodeExists):
		return nil, errClaimed
	case errors.Is(err, zk.ErrNoNode):
		return nil, errGone
	case err != nil:
		return nil, err
	}
	ok, st, err := q.rz.Exists(ctx, claim)
	if err != nil {
		return nil, err
	}
	if !ok || st.EphemeralOwner != sid {
		// Made on a session after the marker's: it cannot be acknowledged.
		if ok {
			_ = q.rz.DeleteOwn(ctx, claim, -1, st.EphemeralOwner)
		}
		return nil, errSessionMoved
	}
	it, err := q.read(ctx, name)
	if err != nil {
		_ = q.rz.DeleteOwn(ctx, claim, -1, sid)
		return nil, err
	}
	it.claim, it.marker, it.session = claim, marker, sid
	q.held[name] = true
	q.log.Debug("claimed an item", "item", name, "delivery", AtLeastOnce)
	return it, nil
}

// read returns the item called name, with its value.
func (q *Queue) read(ctx context.Context, name string) (*Item, error) {
	data, st, err := q.rz.Get(ctx, q.item(name))
	if errors.Is(err, zk.ErrNoNode) {
		return nil, errGone
	}
	if err != nil {
		return nil, err
	}
	priority, seq, _ := parseName(name)
	return &Item{Entry: Entry{Name: name, Priority: priority, Seq: seq, Value: data, Claimed: st.NumChildren > 0}, q: q}, nil
}

// wait returns when the items may have changed since names were read, or
// claimed's claim (if any) ended. Every waiting consumer watches the
// queue's children, as on ZooKeeper's recipes page: see README.md for why
// this queue keeps that herd.
func (q *Queue) wait(ctx context.Context, names []string, claimed string) error {
	children, changed, err := q.rz.ChildrenW(ctx, q.path)
	if err != nil {
		return fmt.Errorf("queue: take: %w", err)
	}
	if !same(items(children), names) {
		return nil
	}
	var released <-chan zk.Event
	if claimed != "" {
		ok, _, ch, err := q.rz.ExistsW(ctx, q.item(claimed)+"/"+claimName)
		if err != nil || !ok {
			return err
		}
		released = ch
	}
	select {
	case <-changed:
	case <-released:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// same reports whether a and b hold the same names in the same order.
func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
