package speaker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// EpochField starts the optional fourth field of a line: the writer's
// leader epoch, the czxid of its election znode.
const EpochField = "epoch="

// ErrFenced is returned when fencing refuses a line: a leader with a higher
// epoch has already written to the file, so this writer's term is over,
// whatever it believes.
var ErrFenced = errors.New("speaker: fenced off by a newer leader")

// ErrNotSynced is returned when a line reached the file but fsync failed:
// the line counts, but may not survive a crash of the machine.
var ErrNotSynced = errors.New("speaker: line written but not fsynced")

// lineFile appends whole lines to a file that other processes append to as
// well. Each line goes out in a single write(2) on a descriptor opened with
// O_APPEND, so the kernel places it at the end of the file in one piece:
// two speakers sharing out.txt can never tear each other's lines. After each
// line it fsyncs, unless told not to, so a written line survives a crash.
type lineFile struct {
	mu    sync.Mutex
	f     *os.File
	fsync bool
}

func openLineFile(path string, fsync bool) (*lineFile, error) {
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	return &lineFile{f: f, fsync: fsync}, nil
}

// Append writes line, which must end in a newline, in one write. With fence,
// it first takes an exclusive lock on the file and refuses the line if the
// last epoch in the file is higher than epoch: the check and the write then
// happen as one, for every writer that fences.
func (l *lineFile) Append(line []byte, epoch int64, fence bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ErrClosed
	}
	if fence {
		if err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX); err != nil {
			return fmt.Errorf("speaker: lock %s: %w", l.f.Name(), err)
		}
		defer syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) //nolint:errcheck // closing the file unlocks too
		last, err := lastEpoch(l.f)
		if err != nil {
			return err
		}
		if last > epoch {
			return fmt.Errorf("%w: the file's last epoch is %d, ours is %d", ErrFenced, last, epoch)
		}
	}
	n, err := l.f.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("speaker: append to %s: %w", l.f.Name(), err)
	}
	if l.fsync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrNotSynced, l.f.Name(), err)
		}
	}
	return nil
}

// lastEpoch returns the epoch of the last line in f that has one, looking
// at the file's last 64 KiB, or 0.
func lastEpoch(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	start := max(size-64<<10, 0)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("speaker: read %s: %w", f.Name(), err)
	}
	for len(buf) > 0 {
		i := bytes.LastIndexByte(bytes.TrimRight(buf, "\n"), '\n')
		line := buf[i+1:]
		if j := bytes.Index(line, []byte(" "+EpochField)); j >= 0 {
			field := bytes.TrimRight(line[j+1+len(EpochField):], "\n")
			if k := bytes.IndexByte(field, ' '); k >= 0 {
				field = field[:k]
			}
			if e, err := strconv.ParseInt(string(field), 10, 64); err == nil {
				return e, nil
			}
		}
		if i < 0 {
			break
		}
		buf = buf[:i]
	}
	return 0, nil
}

// Close closes the file; later appends fail with ErrClosed.
func (l *lineFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
