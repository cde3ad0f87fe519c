package queue

import (
	"context"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	zq "zkspeaker/recipes/queue"
)

// The soak's end, once the faults are over: the producers stop, and the
// ledgers of the processes killed in the soak are reaped by the
// consumers' handles, so that only the consumers' own are left for their
// Close at the final stop, and the checker can hold the soak to "no
// ledger left" (check.go).

// reapBound is how long a killed process's ledger may stand: its session
// ends, a consumer's look (every half of its session timeout) finds it
// without a marker, and deletes it a grace of a session timeout later, at
// its next look; twice that, as the servers may grant longer sessions.
func reapBound(c *chaos.Config) time.Duration {
	return 2 * (3*c.Session + c.Tick + chaos.Slack)
}

// wind stops the producers, and waits for the ledgers to be the
// consumers' alone.
func wind(env *chaos.Env) func(ctx context.Context) {
	return func(ctx context.Context) {
		env.Stop(isProducer)
		c := env.Config()
		until(ctx, reapBound(c), func(ctx context.Context) bool {
			ledgers, err := zq.Ledgers(ctx, env.Conn(), path)
			return err == nil && len(ledgers) <= c.Speakers
		})
	}
}

// until asks done every 100 ms until it says yes, for at most d.
func until(ctx context.Context, d time.Duration, done func(ctx context.Context) bool) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for !done(ctx) && ctx.Err() == nil {
		chaos.Sleep(ctx, 100*time.Millisecond)
	}
}
