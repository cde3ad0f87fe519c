package sequence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// FileStore is a Store in a local directory. Each reservation is a file of
// its own, named for it (orders@2001 holds orders' reservation 2001),
// written to a temporary name, fsynced, renamed into place, and the
// directory fsynced: a crash leaves it whole or absent. A file is never
// changed afterwards, and a sequence's reservation is the highest of its
// files, so no writer can lower it: a stale leader's late file only adds
// a lower one. Once its own file is durable, a writer deletes the lower
// ones, so there is normally one file per sequence. No lock is taken, so
// a writer frozen in the middle blocks no one.
//
// Every persistence process must use the same directory (on one machine,
// or a shared file system): it stands for the article's S3, where the same
// scheme works with one object per reservation.
type FileStore struct {
	dir string
}

// OpenFileStore opens (and creates) the directory dir as a Store, and
// checks that it can write there.
func OpenFileStore(dir string) (*FileStore, error) {
	if dir == "" {
		return nil, fmt.Errorf("%w: no directory given", ErrStore)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
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

// Raise stores max(stored, to) for name: a new file when to is higher.
func (fs *FileStore) Raise(ctx context.Context, name string, to int64) (int64, error) {
	if err := ValidateName(name); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	all, err := fs.files()
	if err != nil {
		return 0, err
	}
	if stored := slices.Max(append(all[name], 0)); stored >= to {
		return stored, nil
	}
	if err := fs.write(name, to); err != nil {
		return 0, err
	}
	for _, v := range all[name] { // lower ones: ours is durable, so they no longer count
		if v < to {
			os.Remove(fs.path(name, v))
		}
	}
	return to, nil
}

// All returns the highest reservation of each sequence.
func (fs *FileStore) All(ctx context.Context) (map[string]int64, error) {
	all, err := fs.files()
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(all))
	for name, vs := range all {
		out[name] = slices.Max(vs)
	}
	return out, nil
}

func (fs *FileStore) path(name string, v int64) string {
	return filepath.Join(fs.dir, name+"@"+strconv.FormatInt(v, 10))
}

// files lists the reservations on disk, by sequence.
func (fs *FileStore) files() (map[string][]int64, error) {
	entries, err := os.ReadDir(fs.dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	out := make(map[string][]int64)
	for _, e := range entries {
		name, num, ok := strings.Cut(e.Name(), "@")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || e.IsDir() || ValidateName(name) != nil {
			continue // a temporary file, or not ours
		}
		out[name] = append(out[name], v)
	}
	return out, nil
}

// write makes name's file for v, so that a crash leaves it whole or
// absent, and it survives once write returns.
func (fs *FileStore) write(name string, v int64) error {
	tmp, err := os.CreateTemp(fs.dir, "."+name+".tmp-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; left only by a failure
	err = tmp.Chmod(0o644)      // CreateTemp makes it private
	if err == nil {
		_, err = fmt.Fprintf(tmp, "%d\n", v)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), fs.path(name, v))
	}
	if err == nil {
		err = syncDir(fs.dir) // the rename itself must survive a crash
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
