package speaker

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"zkspeaker/internal/reason"
)

// errFenced is returned when fencing refuses a line: a leader with a higher
// epoch has already written to the file, so this writer's term is over,
// whatever it believes.
var errFenced = errors.New("speaker: fenced off by a newer leader")

// ErrOutFile is wrapped by every error about the out file itself: it
// cannot be made, or opened for appending.
var ErrOutFile = errors.New("speaker: out file")

// errNotSynced is returned when a line reached the file but fsync failed:
// the line counts, but may not survive a crash of the machine.
var errNotSynced = errors.New("speaker: line written but not fsynced")

// errClosed is returned by Append once the file is closed.
var errClosed = errors.New("speaker: closed")

// lineFile appends whole lines to a file that other processes append to as
// well. Each line goes out in a single write(2) on a descriptor opened with
// O_APPEND, so the kernel places it at the end of the file in one piece:
// two speakers sharing out.txt can never tear each other's lines. After each
// line it fsyncs, unless told not to, so a written line survives a crash.
type lineFile struct {
	mu    sync.Mutex
	f     *os.File
	fsync bool
	// held says that the file lock is ours already, with heldLast the
	// last epoch read under it (see prepare in fence.go).
	held     bool
	heldLast int64
}

func openLineFile(path string, fsync bool) (*lineFile, error) {
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	return &lineFile{f: f, fsync: fsync}, nil
}

// Check reports whether path can be opened for appending, creating its
// folder, without writing anything: the command's input check. When it
// fails it leaves nothing behind, not even the folders it made on the way
// to find out, as it must for "new/", which names a folder.
func Check(path string) error {
	f, err := openAppend(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// openAppend opens path for appending, creating it and its folder. On an
// error, the folders it created are removed again.
func openAppend(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	made := missingFolders(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeEmpty(made)
		return nil, &reason.Error{Kind: ErrOutFile, Field: "out", Text: fmt.Sprintf("create directory of %s: %v", path, err), Cause: err}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		removeEmpty(made)
		return nil, &reason.Error{Kind: ErrOutFile, Field: "out", Text: fmt.Sprintf("open %s for append: %v", path, err), Cause: err}
	}
	return f, nil
}

// missingFolders lists dir and those of its parents that do not exist,
// deepest first: the folders MkdirAll(dir) is about to create.
func missingFolders(dir string) []string {
	var missing []string
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
	}
	return missing
}

// removeEmpty removes each folder while it is empty, so never what another
// process has put there since.
func removeEmpty(folders []string) {
	for _, d := range folders {
		_ = os.Remove(d)
	}
}

// Append writes line in one write. With fence, it first takes an exclusive
// lock on the file and refuses the line if the last epoch in the file is
// higher than the line's: the check and the write then happen as one, for
// every writer that fences. It waits at most lockWait for the lock: a
// writer frozen (SIGSTOP) while it holds the lock must not stall its
// successor for as long as the freeze lasts; the line is skipped instead.
// The fsync runs after the lock is released, to keep the lock short.
func (l *lineFile) Append(line Line, fence bool, lockWait time.Duration) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errClosed
	}
	if err := l.write(line, fence, lockWait); err != nil {
		return err
	}
	if l.fsync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("%w: %s: %w", errNotSynced, l.f.Name(), err)
		}
	}
	return nil
}

// write is Append's part under the file lock.
func (l *lineFile) write(line Line, fence bool, lockWait time.Duration) error {
	if fence {
		last, err := l.fence(lockWait)
		if err != nil {
			return err
		}
		defer l.unlock()
		if last > line.Epoch {
			return fmt.Errorf("%w: the file's last epoch is %d, ours is %d", errFenced, last, line.Epoch)
		}
	}
	b := line.Append(make([]byte, 0, 96))
	n, err := l.f.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("speaker: append to %s: %w", l.f.Name(), err)
	}
	return nil
}

// Close closes the file; later appends fail with errClosed.
func (l *lineFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close() // releases a held lock too
	l.f, l.held = nil, false
	return err
}
