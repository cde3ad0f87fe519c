package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"zkspeaker/speaker"
)

// Work is the critical section of a lock soak, the CMD each zklock
// contender runs while it holds the lock: it appends a line to out every
// interval, at once first, for hold, each in the speaker's format with the
// lock's epoch, whole and fsynced. Its first and last lines bound the
// section; a second holder's line between them is two holders at once,
// which the checker reads as an overlap, as for two speakers. With fence,
// it fences itself with the epoch, as the lock's docs tell a holder to:
// a line below the file's last epoch is refused, and the section ends.
// That alone closes the window that no lock can: an operator deletes the
// holder's znode while its zklock is frozen or cut off, and the next
// holder starts before the old one has heard. It returns nil when hold is
// over, when it was fenced off, or when ctx is done (zklock's SIGTERM).
func Work(ctx context.Context, name, out string, interval, hold time.Duration, epoch int64, fence bool) error {
	f, err := speaker.OpenAppender(out)
	if err != nil {
		return err
	}
	defer f.Close()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	end := time.After(hold)
	for counter := uint64(1); ; counter++ {
		err := f.Append(speaker.Line{Time: time.Now(), Name: name, Counter: counter, Epoch: epoch}, fence)
		if errors.Is(err, speaker.ErrFenced) {
			fmt.Fprintf(os.Stderr, "chaos-work: fenced off, a newer holder wrote: %v\n", err)
			return nil
		}
		if err != nil {
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
