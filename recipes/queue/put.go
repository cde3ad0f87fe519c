package queue

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"
)

// Put adds value to the queue at the lowest priority, 0: Take returns the
// items of one priority in the order of their puts. See PutPriority.
func (q *Queue) Put(ctx context.Context, value []byte) (string, error) {
	return q.PutPriority(ctx, value, 0)
}

// PutPriority adds value with a priority from 0 to MaxPriority: Take
// returns a higher priority first. It returns once the item is in the
// queue, with the item's znode name, and an acknowledged put is never
// lost: the item stays until a consumer takes it.
//
// The create is a persistent sequential znode in one multi with the
// ledger's step (ledger.go). Should its reply be lost, the ledger says
// whether it went in, and it is never made twice. The name is then ""
// when it went in, as the lost reply carried it and the item may have been
// taken already. The error wraps ErrUnsettled when ctx ended before that
// was known.
func (q *Queue) PutPriority(ctx context.Context, value []byte, priority int) (string, error) {
	if err := checkPriority(priority); err != nil {
		return "", err
	}
	end, err := q.begin(ctx)
	if err != nil {
		return "", err
	}
	defer end()
	create := &zk.CreateRequest{Path: q.item(prefixFor(priority)), Data: value, Acl: q.acl, Flags: zk.FlagSequence}
	res, err := q.ledger.write(ctx, create)
	if err != nil {
		if errors.Is(err, zk.ErrNoNode) {
			return "", fmt.Errorf("queue: put: %s was deleted: %w", q.path, err)
		}
		return "", fmt.Errorf("queue: put: %w", err)
	}
	name := ""
	if res != nil {
		name = path.Base(res[0].String)
	}
	q.log.Debug("put an item", "item", name, "priority", priority)
	return name, nil
}
