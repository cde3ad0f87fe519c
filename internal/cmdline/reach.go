package cmdline

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// SayWhileUnreachable is for the commands that wait for ZooKeeper as long
// as it takes (speaker, zklock): go-zookeeper retries its servers in
// silence, so a mistyped address would look like a long queue. Once, and
// at once, it warns when nothing answers at any server, with how to start
// one; then it logs "waiting for ZooKeeper" less and less often until the
// first session, and calls connected (if not nil) then. stop ends both
// goroutines and waits for them.
func SayWhileUnreachable(ctx context.Context, log *slog.Logger, rz *recoverable.RecoverableZookeeper, servers []string, connected func()) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if rz.WaitConnected(ctx) == nil && connected != nil {
			connected()
		}
	}()
	go func() {
		defer wg.Done()
		if err := fourletter.CheckReachable(ctx, servers); errors.Is(err, fourletter.ErrNoZooKeeper) {
			log.Warn(err.Error())
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}
