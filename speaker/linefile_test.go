package speaker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLastEpochLooksBackAsFarAsItMust writes a fenced line, then lines
// without an epoch (an at-least-one speaker's) up to a given distance from
// the end, and checks that the fence finds the epoch however far back it is
// within 64 KiB, even when a window cuts it in two, and not beyond.
func TestLastEpochLooksBackAsFarAsItMust(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	fenced := Line{Time: at, Name: "fenced", Counter: 2, Epoch: 7}.Append(nil)
	for _, tc := range []struct {
		name string
		tail int // bytes of unfenced lines after the fenced one
		want int64
	}{
		{"the newest line", 0, 7},
		{"inside the first window", 500, 7},
		{"cut by the first window", 1024 - len(fenced)/2, 7},
		{"cut by the second window", 8<<10 - len(fenced)/2, 7},
		{"in the last window", 60 << 10, 7},
		{"beyond 64 KiB", 65 << 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Line{Time: at, Name: "older", Counter: 1, Epoch: 3}.Append(nil)
			b = append(b, fenced...)
			var tail []byte
			for n := uint64(3); len(tail) < tc.tail; n++ {
				line := Line{Time: at, Name: "unfenced", Counter: n}.Append(nil)
				if short := tc.tail - len(tail); short < 2*len(line) {
					// The last line or two fill the tail to the byte.
					line = Line{Time: at, Name: strings.Repeat("u", max(1, short-len(line)+len("unfenced"))), Counter: n}.Append(nil)
				}
				tail = append(tail, line...)
			}
			if len(tail) != tc.tail {
				t.Fatalf("test setup: tail is %d bytes, want %d", len(tail), tc.tail)
			}
			path := filepath.Join(t.TempDir(), "out.txt")
			if err := os.WriteFile(path, append(b, tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got, err := lastEpoch(f); err != nil || got != tc.want {
				t.Fatalf("fenced line %d bytes before the end: lastEpoch = %d, %v; want %d", tc.tail, got, err, tc.want)
			}
		})
	}
}
