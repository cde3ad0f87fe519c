package cmdline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// Session connects and waits for the session; the caller closes the
// client. A command that does one thing and exits (create, list, put,
// set) fails at once when no ZooKeeper answers, before any client exists
// (go-zookeeper would only retry, silently, for as long as it is let), and
// ctx, bounded by its --timeout, bounds its wait. One that runs until
// stopped (join, take --follow, run) waits for ZooKeeper as long as it
// takes, saying so, as the speaker does (AwaitSession).
func (z ZooKeeper) Session(ctx context.Context, log *slog.Logger, runsUntilStopped bool) (*recoverable.RecoverableZookeeper, error) {
	if !runsUntilStopped {
		if err := fourletter.CheckReachable(ctx, z.Servers); err != nil {
			return nil, err
		}
	}
	rz, _, err := z.Connect(log)
	if err != nil {
		return nil, err
	}
	if runsUntilStopped {
		err = AwaitSession(ctx, log, rz, z.Servers, z.SessionTimeout)
	} else if err = rz.WaitConnected(ctx); err == nil {
		WarnGranted(log, z.SessionTimeout, rz.SessionTimeout())
	}
	if err != nil {
		rz.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("ZooKeeper at %s answers but opened no session in time: is a majority of its ensemble up?", strings.Join(z.Servers, ","))
		}
		return nil, err
	}
	return rz, nil
}
