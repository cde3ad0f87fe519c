package group

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/speaker"
)

const (
	groupPath   = "/chaos-group"
	watcherName = "watcher"
	sampleEvery = 200 * time.Millisecond
)

// reading is one reading of a group's members: by the operator, or as the
// watcher reported it (Life tells the watcher's process).
type reading struct {
	At      time.Time
	Members []string // sorted
	Life    int      // the watcher's life, from 1; 0 for the operator's
	Change  string   // the watcher's line: "+ m3", "- m1", or its first reading
}

// groupRecord collects the group soak's readings as they come.
type groupRecord struct {
	mu       sync.Mutex
	samples  []reading
	reports  []reading
	inGroup  map[string]uint64 // member -> readings in a row that list it
	watching []string          // the watcher's set now
	life     int
	unread   []chaos.Span // when the operator's reads failed
	failing  time.Time    // since when they fail; zero while they succeed
	out, log *os.File
}

func openGroupRecord(dir string) (*groupRecord, error) {
	out, err := os.OpenFile(filepath.Join(dir, "out.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, "watch.txt"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		out.Close()
		return nil, err
	}
	return &groupRecord{inGroup: map[string]uint64{}, out: out, log: log}, nil
}

func (g *groupRecord) close() {
	g.out.Close()
	g.log.Close()
}

// sample records the operator's reading and writes its lines.
func (g *groupRecord) sample(at time.Time, members []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.samples = append(g.samples, reading{At: at, Members: members})
	var b []byte
	for m := range g.inGroup {
		if !slices.Contains(members, m) {
			delete(g.inGroup, m) // a gap: its next reading starts a new life in the picture
		}
	}
	for _, m := range members {
		g.inGroup[m]++
		b = speaker.Line{Time: at, Name: m, Counter: g.inGroup[m]}.Append(b)
	}
	_, _ = g.out.Write(b)
}

// failed records a reading the operator could not make: the servers it
// asks are down, or have lost their quorum.
func (g *groupRecord) failed(at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failing.IsZero() {
		g.failing = at
	}
}

// readAgain closes the span of failed readings, if one is open, at the
// moment the operator read again (or stopped reading).
func (g *groupRecord) readAgain(at time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.failing.IsZero() {
		g.unread = append(g.unread, chaos.Span{From: g.failing, To: at})
		g.failing = time.Time{}
	}
}

// Line implements chaos.LineSink for the watcher: "15:04:05.000 + m3",
// "… - m1", or the first reading "… /chaos-group has 2 member(s): m1 m2".
func (g *groupRecord) Line(_ string, n uint64, at time.Time, text string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fmt.Fprintf(g.log, "%s %s\n", at.UTC().Format(time.RFC3339Nano), text)
	_, rest, _ := strings.Cut(text, " ")
	if n == 1 {
		g.life++
		g.watching = nil
		if _, names, ok := strings.Cut(rest, ": "); ok {
			g.watching = strings.Fields(names)
		}
	} else if op, m, ok := strings.Cut(rest, " "); ok {
		switch op {
		case "+":
			g.watching = append(g.watching, m)
		case "-":
			g.watching = slices.DeleteFunc(g.watching, func(x string) bool { return x == m })
		}
	}
	slices.Sort(g.watching)
	g.reports = append(g.reports, reading{At: at, Members: slices.Clone(g.watching), Life: g.life, Change: rest})
}

// readUntil reads the group every sampleEvery until ctx ends.
func (g *groupRecord) readUntil(ctx context.Context, env *chaos.Env) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			g.readAgain(time.Now()) // the span of failures, if any, ends here
			return
		case <-t.C:
		}
		c, cancel := context.WithTimeout(ctx, sampleEvery)
		members, err := env.Conn().Children(c, groupPath)
		cancel()
		switch {
		case err == nil:
			slices.Sort(members)
			at := time.Now()
			g.readAgain(at)
			g.sample(at, members)
		case ctx.Err() == nil:
			g.failed(time.Now())
		}
	}
}

// record is the checker's view of the group soak.
func (g *groupRecord) record(env *chaos.Env) *Record {
	in := &Record{Lives: env.Lives()}
	g.mu.Lock()
	in.Samples, in.Reports, in.Unread = slices.Clone(g.samples), slices.Clone(g.reports), slices.Clone(g.unread)
	g.mu.Unlock()
	return in
}
