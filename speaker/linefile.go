package speaker

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// lineFile appends whole lines to a file that other processes append to as
// well. Each line goes out in a single write(2) on a descriptor opened with
// O_APPEND, so the kernel places it at the end of the file in one piece:
// two speakers sharing out.txt can never tear each other's lines. After each
// line it fsyncs, unless told not to, so an acknowledged line survives a crash.
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

// Append writes line, which must end in a newline, in one write.
func (l *lineFile) Append(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ErrClosed
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
			return fmt.Errorf("speaker: fsync %s: %w", l.f.Name(), err)
		}
	}
	return nil
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
