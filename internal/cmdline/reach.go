package cmdline

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// SayWhileUnreachable is for the commands that wait for ZooKeeper as long
// as it takes (speaker, zklock): go-zookeeper retries its servers in
// silence, so a mistyped address would look like a long queue. Once, and
// at once, it warns when nothing answers at any server, with how to start
// one; then it logs "waiting for ZooKeeper" less and less often until the
// first session, and then warns if the server changed the session timeout
// asked for (WarnGranted). stop ends both goroutines and waits for them.
func SayWhileUnreachable(ctx context.Context, log *slog.Logger, rz *recoverable.RecoverableZookeeper, servers []string, asked time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if rz.WaitConnected(ctx) == nil {
			WarnGranted(log, asked, rz.SessionTimeout())
		}
	}()
	go func() {
		defer wg.Done()
		warnWaiting(ctx, log, servers)
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// AwaitSession is for the commands that run until stopped and need a
// session before they do anything (zkgroup join and list --watch, zkconfig
// update): it waits for ZooKeeper as long as it takes, or until ctx is
// done (its error). Meanwhile it says what SayWhileUnreachable says: at
// once, a WARN when nothing answers at any server, with how to start one;
// then "waiting for ZooKeeper", less and less often; and on the session,
// a WARN if the server changed the session timeout asked for.
func AwaitSession(ctx context.Context, log *slog.Logger, rz *recoverable.RecoverableZookeeper, servers []string, asked time.Duration) error {
	probe, cancel := context.WithCancel(ctx)
	defer cancel()
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		warnWaiting(probe, log, servers)
	}()
	err := rz.WaitConnected(ctx)
	cancel()
	<-probed
	if err == nil {
		WarnGranted(log, asked, rz.SessionTimeout())
	}
	return err
}

// Waiting ends the warning of a command that waits for ZooKeeper when
// none answers, after how to start one: it is not stuck, and not failing.
const Waiting = "; waiting until one answers"

// warnWaiting warns once, at once, when nothing answers at any server.
func warnWaiting(ctx context.Context, log *slog.Logger, servers []string) {
	if err := fourletter.CheckReachable(ctx, servers); errors.Is(err, fourletter.ErrNoZooKeeper) {
		log.Warn(err.Error() + Waiting)
	}
}

// WarnGranted warns when the server granted another session timeout than
// asked: it grants 2 to 20 ticks, whatever the client asks, and every bound
// in the docs counts from the granted one, so a silent change would make
// them wrong without a word.
func WarnGranted(log *slog.Logger, asked, granted time.Duration) {
	asked = asked.Truncate(time.Millisecond) // what goes on the wire
	switch {
	case granted > asked:
		log.Warn("the server raised our session timeout to the shortest it allows",
			"asked", asked, "granted", granted, "minSessionTimeout", granted)
	case granted < asked:
		log.Warn("the server lowered our session timeout to the longest it allows",
			"asked", asked, "granted", granted, "maxSessionTimeout", granted)
	}
}
