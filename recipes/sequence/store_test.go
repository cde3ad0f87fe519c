package sequence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Many writers raise one reservation at once, with values in any order,
// as a stale leader and its successor might: what is stored at the end is
// the highest, no temporary file is left, and once a raise runs alone the
// lower files are gone.
func TestFileStoreNeverLowers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := context.Background()
	var wg sync.WaitGroup
	var highest int64
	value := func(w, i int) int64 { return int64((i*7919+w*104729)%1000 + 1) }
	for w := range 8 {
		for i := range 50 {
			highest = max(highest, value(w, i))
		}
		fs, err := OpenFileStore(dir) // each writer its own handle, as separate processes have
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				v := value(w, i)
				if _, err := fs.Raise(ctx, "s", Reservation{v, "i", ModeCAS}); err != nil {
					t.Errorf("Raise(%d): %v", v, err)
				}
			}
		}()
	}
	wg.Wait()
	fs, _ := OpenFileStore(dir)
	if before, err := fs.Raise(ctx, "s", Reservation{3, "j", ModeCAS}); err != nil || before != (Reservation{highest, "i", ModeCAS}) {
		t.Fatalf("Raise(3) = %v, %v; want the stored %d", before, err, highest)
	}
	all, err := fs.All(ctx)
	if err != nil || len(all) != 1 || all["s"] != (Reservation{highest, "i", ModeCAS}) {
		t.Fatalf("All = %v, %v; want s at %d", all, err, highest)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".s.tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("left behind: %v", leftovers)
	}
	// One more raise, alone: the lower files go, one is left.
	if _, err := fs.Raise(ctx, "s", Reservation{highest + 1, "j", ModeCAS}); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "s@*")); len(files) != 1 || filepath.Base(files[0]) != fmt.Sprintf("s@%d", highest+1) {
		t.Errorf("files after a lone raise: %v", files)
	}
}

func TestFileStoreRefusesAnUnwritableDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if os.Geteuid() == 0 {
		// root writes anywhere; a file in place of the directory still fails
		dir = filepath.Join(t.TempDir(), "file")
		os.WriteFile(dir, nil, 0o644)
	}
	if _, err := OpenFileStore(dir); !errors.Is(err, ErrStore) {
		t.Errorf("OpenFileStore(%s): %v", dir, err)
	}
}

// A reservation keeps its sequence's mode, so that Restore makes it anew in
// it; a file of the old form, value and incarnation alone, is compare-and-set.
func TestFileStoreKeepsTheMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	fs, err := OpenFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Raise(ctx, "c", Reservation{20, "i", ModeCounter}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old@30"), []byte("30 j\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := fs.All(ctx)
	if err != nil || all["c"] != (Reservation{20, "i", ModeCounter}) || all["old"] != (Reservation{30, "j", ModeCAS}) {
		t.Errorf("All: %v, %v", all, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "c@20")); string(data) != "20 i counter\n" {
		t.Errorf("the counter's file holds %q", data)
	}
}
