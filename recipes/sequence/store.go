package sequence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"zkspeaker/internal/reason"
)

// Store keeps each sequence's reservation where a loss of every ZooKeeper
// server cannot reach it: the article keeps them in S3. A reservation only
// ever goes up, even when two persistence processes write at once (a
// stale leader and its successor): that is what makes Restore safe.
type Store interface {
	// Raise durably stores r for name unless a reservation at least as
	// high is stored, and returns the highest one stored before (the zero
	// Reservation when there was none). It returns only once r would
	// survive a crash.
	Raise(ctx context.Context, name string, r Reservation) (before Reservation, err error)
	// Reserved returns name's highest stored reservation, the zero
	// Reservation when it has none.
	Reserved(ctx context.Context, name string) (Reservation, error)
	// All returns the highest stored reservation of every sequence.
	All(ctx context.Context) (map[string]Reservation, error)
}

// Reservation is a sequence's stored limit: no ID at or above Value was
// ever handed out. Incarnation says which making of the sequence it
// belongs to (see state), so that a sequence made anew after ZooKeeper
// lost its data is not mistaken for the one the reservation counted.
type Reservation struct {
	Value       int64
	Incarnation string
	// Mode is the sequence's, so that Restore makes it anew in the mode
	// it had; a reservation stored without one is ModeCAS.
	Mode Mode
}

// ErrStore is wrapped by every error of a FileStore.
var ErrStore = errors.New("sequence: store")

// FileStore is a Store in a local directory. Each reservation is a file of
// its own, named for it (orders@2001 holds orders' reservation 2001 and
// its incarnation),
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
		return nil, reason.New(ErrStore, "store", "no directory given")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, reason.Because(ErrStore, "store", err)
	}
	probe, err := os.CreateTemp(dir, ".probe-")
	if err != nil {
		return nil, &reason.Error{Kind: ErrStore, Field: "store", Text: fmt.Sprintf("cannot write in %s: %v", dir, err), Cause: err}
	}
	probe.Close()
	os.Remove(probe.Name())
	return &FileStore{dir: dir}, nil
}

// Dir returns the store's directory.
func (fs *FileStore) Dir() string { return fs.dir }

// Raise stores r for name: a new file when r is higher than every file.
func (fs *FileStore) Raise(ctx context.Context, name string, r Reservation) (Reservation, error) {
	if err := ValidateName(name); err != nil {
		return Reservation{}, err
	}
	if err := ctx.Err(); err != nil {
		return Reservation{}, err
	}
	all, err := fs.files()
	if err != nil {
		return Reservation{}, err
	}
	before := highest(all[name])
	if before.Value >= r.Value {
		return before, nil
	}
	if err := fs.write(name, r); err != nil {
		return Reservation{}, err
	}
	for _, old := range all[name] { // lower ones: ours is durable, so they no longer count
		os.Remove(fs.path(name, old.Value))
	}
	return before, nil
}

// Reserved returns name's highest reservation.
func (fs *FileStore) Reserved(ctx context.Context, name string) (Reservation, error) {
	all, err := fs.files()
	if err != nil {
		return Reservation{}, err
	}
	return highest(all[name]), nil
}

// All returns the highest reservation of each sequence.
func (fs *FileStore) All(ctx context.Context) (map[string]Reservation, error) {
	all, err := fs.files()
	if err != nil {
		return nil, err
	}
	out := make(map[string]Reservation, len(all))
	for name, rs := range all {
		out[name] = highest(rs)
	}
	return out, nil
}

func highest(rs []Reservation) Reservation {
	var h Reservation
	for _, r := range rs {
		if r.Value > h.Value {
			h = r
		}
	}
	return h
}

func (fs *FileStore) path(name string, v int64) string {
	return filepath.Join(fs.dir, name+"@"+strconv.FormatInt(v, 10))
}

// files reads the reservations on disk, by sequence. A file holds its
// value, its incarnation and, but for ModeCAS, its mode:
// "2001 3f0c9a1b2c3d4e5f counter". A file that a
// writer deleted between the listing and the reading (a lower one, once
// its higher one was durable) makes it list again: skipping it could miss
// a sequence whose only file was replaced.
func (fs *FileStore) files() (map[string][]Reservation, error) {
	for {
		out, err := fs.read()
		if !errors.Is(err, os.ErrNotExist) {
			return out, err
		}
	}
}

func (fs *FileStore) read() (map[string][]Reservation, error) {
	entries, err := os.ReadDir(fs.dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	out := make(map[string][]Reservation)
	for _, e := range entries {
		name, num, ok := strings.Cut(e.Name(), "@")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || e.IsDir() || ValidateName(name) != nil {
			continue // a temporary file, or not ours
		}
		data, err := os.ReadFile(filepath.Join(fs.dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrStore, err)
		}
		f := strings.Fields(string(data))
		mode := ModeCAS
		if len(f) == 3 {
			mode, err = ParseMode(f[2])
		}
		if len(f) < 2 || len(f) > 3 || f[0] != num || err != nil {
			return nil, fmt.Errorf("%w: %s: want %q, the incarnation and the mode, found %q", ErrStore, e.Name(), num, data)
		}
		out[name] = append(out[name], Reservation{Value: v, Incarnation: f[1], Mode: mode})
	}
	return out, nil
}

// write makes name's file for r, so that a crash leaves it whole or
// absent, and it survives once write returns.
func (fs *FileStore) write(name string, r Reservation) error {
	tmp, err := os.CreateTemp(fs.dir, "."+name+".tmp-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; left only by a failure
	err = tmp.Chmod(0o644)      // CreateTemp makes it private
	if err == nil {
		_, err = fmt.Fprintf(tmp, "%d %s%s\n", r.Value, r.Incarnation, r.Mode.suffix())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), fs.path(name, r.Value))
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
