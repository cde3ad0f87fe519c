package speaker

import (
	"errors"
	"time"
)

// ErrFenced is returned by Appender.Append when the fence refused a line:
// the file holds a line of a higher epoch, so the writer's term is over.
var ErrFenced = errFenced

// Appender writes lines to a file that other processes append to, as a
// Speaker does: whole lines, fsynced, and with the fence, never below the
// file's last epoch. It is for writers whose epoch comes from elsewhere: a
// command run under zklock, with ZKLOCK_EPOCH, fences itself with it, as
// the lock's docs advise.
type Appender struct{ f *lineFile }

// OpenAppender opens path for appending, creating it if missing.
func OpenAppender(path string) (*Appender, error) {
	f, err := openLineFile(path, true)
	if err != nil {
		return nil, err
	}
	return &Appender{f: f}, nil
}

// Append writes line, whole and fsynced. With fence it first takes the
// file lock, waiting at most a second, and refuses the line with
// ErrFenced when the file's last epoch is higher than the line's.
func (a *Appender) Append(line Line, fence bool) error {
	return a.f.Append(line, fence, time.Second)
}

// Close closes the file.
func (a *Appender) Close() error {
	if err := a.f.Close(); err != nil && !errors.Is(err, errClosed) {
		return err
	}
	return nil
}
