package chaos

import (
	"context"
	"fmt"
	"os"
	"time"

	"zkspeaker/speaker"
)

// Work is the critical section of a lock soak, the CMD each zklock
// contender runs while it holds the lock: it appends a line to out every
// interval, at once first, for hold, each in the speaker's format with the
// lock's epoch, written whole (one append) and fsynced. Its first and last
// lines bound the section; a second holder's line between them is two
// holders at once, which the checker reads as an overlap, as for two
// speakers. It returns nil when hold is over or ctx is done (zklock's
// SIGTERM): a graceful end.
func Work(ctx context.Context, name, out string, interval, hold time.Duration, epoch int64) error {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	end := time.After(hold)
	for counter := uint64(1); ; counter++ {
		line := speaker.Line{Time: time.Now(), Name: name, Counter: counter, Epoch: epoch}.Append(nil)
		if _, err := f.Write(line); err != nil {
			return fmt.Errorf("chaos-work: %w", err)
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("chaos-work: %w", err)
		}
		select {
		case <-tick.C:
		case <-end:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
