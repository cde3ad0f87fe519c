package sequence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Store keeps each sequence's reservation where a loss of every ZooKeeper
// server cannot reach it: the article keeps them in S3. A reservation only
// ever goes up, even when two persistence processes write at once (a
// stale leader and its successor): that is what makes Restore safe.
type Store interface {
	// Raise durably stores a reservation for name of at least to, never
	// lowering one stored before, and returns the reservation now stored.
	// It returns only once the reservation would survive a crash.
	Raise(ctx context.Context, name string, to int64) (int64, error)
	// All returns every stored reservation, by sequence name.
	All(ctx context.Context) (map[string]int64, error)
}

// ErrStore is wrapped by every error of a FileStore.
var ErrStore = errors.New("sequence: store")

// FileStore is a Store in a local directory, one file per sequence
// (NAME.reserved, the number in decimal), each replaced atomically: write
// a temporary file, fsync it, rename it over the old one, fsync the
// directory. Every persistence process must use the same directory (on one
// machine, or a shared file system): it stands for the article's S3. An
// object store with conditional writes could take its place.
type FileStore struct {
	dir string
}

const reservedSuffix = ".reserved"

// OpenFileStore opens (and creates) the directory dir as a Store, and
// checks that it can write there.
func OpenFileStore(dir string) (*FileStore, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: no directory given", ErrStore)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot write in %s: %w", ErrStore, dir, err)
	}
	f.Close()
	probe, err := os.CreateTemp(dir, ".probe-")
	if err != nil {
		return nil, fmt.Errorf("%w: cannot write in %s: %w", ErrStore, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return &FileStore{dir: dir}, nil
}

// Dir returns the store's directory.
func (fs *FileStore) Dir() string { return fs.dir }

// Raise stores max(stored, to) for name. An exclusive flock on the
// directory's .lock file makes read-compare-write one step among the
// processes of this machine, so that a stale leader's late write can never
// replace a higher reservation with a lower one.
func (fs *FileStore) Raise(ctx context.Context, name string, to int64) (int64, error) {
	if err := ValidateName(name); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	unlock, err := fs.lock()
	if err != nil {
		return 0, err
	}
	defer unlock()
	stored, _, err := fs.read(name)
	if err != nil {
		return 0, err
	}
	if stored >= to {
		return stored, nil
	}
	if err := fs.write(name, to); err != nil {
		return 0, err
	}
	return to, nil
}

// All reads every NAME.reserved file.
func (fs *FileStore) All(ctx context.Context) (map[string]int64, error) {
	entries, err := os.ReadDir(fs.dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	out := make(map[string]int64)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), reservedSuffix)
		if !ok || e.IsDir() || ValidateName(name) != nil {
			continue
		}
		v, _, err := fs.read(name)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

func (fs *FileStore) lock() (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(fs.dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: lock %s: %w", ErrStore, f.Name(), err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}

// read returns name's stored reservation, 0 and false when it has none.
func (fs *FileStore) read(name string) (int64, bool, error) {
	data, err := os.ReadFile(filepath.Join(fs.dir, name+reservedSuffix))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("%w: %w", ErrStore, err)
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %s%s: not a number: %q", ErrStore, name, reservedSuffix, data)
	}
	return v, true, nil
}

// write replaces name's file so that a crash leaves the old number or the
// new one, never a torn one, and the new one survives once write returns.
func (fs *FileStore) write(name string, v int64) error {
	tmp, err := os.CreateTemp(fs.dir, "."+name+".tmp-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; left only by a failure
	if _, err := fmt.Fprintf(tmp, "%d\n", v); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(fs.dir, name+reservedSuffix)); err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	d, err := os.Open(fs.dir)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil { // the rename itself must survive a crash
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	return nil
}
