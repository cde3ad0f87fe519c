package recoverable

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// CreateExistsAfterAnswer is CreateEphemeralExistsW's pipeline with its
// exists held back until the create's answer has arrived: what a busy
// machine's scheduler may do to the second request of any pipeline.
func (r *RecoverableZookeeper) CreateExistsAfterAnswer(ctx context.Context, path string) error {
	answered := make(chan struct{})
	_, createErr, err := pipeline(ctx, r, opCreate, opExists,
		func() error {
			defer close(answered)
			_, err := r.conn.Create(path, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
			return err
		},
		func() (bool, error) {
			<-answered
			ok, _, err := r.conn.Exists(path)
			return ok, err
		})
	if createErr != nil {
		return createErr
	}
	return err
}
