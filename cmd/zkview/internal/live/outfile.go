package live

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"zkspeaker/speaker"
)

// Out is the out file's panel: its last lines, and a strip of who wrote
// when, with the gaps between writers and any overlap.
type Out struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Err    string `json:"err,omitempty"`
	// Lines are the last lines, oldest first.
	Lines []OutLine `json:"lines"`
	// Writers are the names on the lines, in order of first appearance:
	// the page gives each its colour by its place here.
	Writers   []string  `json:"writers"`
	Stretches []Stretch `json:"stretches"`
	Gaps      []Gap     `json:"gaps"`
	Overlaps  []Stretch `json:"overlaps"`
}

// OutLine is one line of the out file and who wrote it.
type OutLine struct {
	Text string `json:"text"`
	Name string `json:"name"`
}

// Stretch is a span of steady writing by one writer, in Unix
// milliseconds; as an overlap, Name holds both writers.
type Stretch struct {
	Name  string  `json:"name"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Epoch int64   `json:"epoch,omitempty"`
}

// Gap is the time between one writer's last line and the next writer's
// first: the failover as the file saw it. Most of it is often idle time:
// the old leader's interval had not come round again when it left, or its
// session was still being waited out. Told splits it: the handover proper
// runs from ZooKeeper's notification, when the old leader's znode went, to
// the new leader's first line.
type Gap struct {
	From   float64 `json:"from"`
	To     float64 `json:"to"`
	Before string  `json:"before"`
	After  string  `json:"after"`
	// Told is when zkview got the notification that ended Before's term,
	// in Unix milliseconds; 0 when it did not see it (it started later).
	Told float64 `json:"told,omitempty"`
	// Late is how long after After's first line that notification reached
	// zkview, when it did (Told is then To): the handover was too short
	// for zkview to time.
	Late float64 `json:"late,omitempty"`
}

// Limits of what the panel reads and keeps: the strip draws the recent
// past, and a file of any size costs the same to read.
const (
	tailBytes   = 256 << 10
	shownLines  = 12
	shownSpans  = 60
	outInterval = 100 * time.Millisecond
)

// followOut reads the out file whenever it grows, or is replaced, until ctx
// ends. A file is no ZooKeeper watch, so this one part looks every
// outInterval.
func (h *Hub) followOut(ctx context.Context, path string) {
	tick := time.NewTicker(outInterval)
	defer tick.Stop()
	var last os.FileInfo
	first := true
	for {
		info, err := os.Stat(path)
		if first || changed(last, info) {
			first = false
			out := readOut(path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				out.Err = err.Error()
			}
			h.update(time.Time{}, "out file", func(p *parts) { p.out = out })
		}
		last = info
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// changed reports whether the file is not what it was.
func changed(old, cur os.FileInfo) bool {
	if old == nil || cur == nil {
		return old != cur
	}
	return old.Size() != cur.Size() || !old.ModTime().Equal(cur.ModTime()) || !os.SameFile(old, cur)
}

// readOut reads the end of the out file into its panel.
func readOut(path string) *Out {
	out := &Out{Path: path, Lines: []OutLine{}, Writers: []string{}, Stretches: []Stretch{}, Gaps: []Gap{}, Overlaps: []Stretch{}}
	data, err := tail(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out
	}
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Exists = true
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for _, l := range lines[max(0, len(lines)-shownLines):] {
		if len(l) == 0 {
			continue
		}
		parsed, _ := speaker.ParseLine(string(l))
		out.Lines = append(out.Lines, OutLine{Text: string(l), Name: parsed.Name})
	}
	tl, err := speaker.ReadTimeline(bytes.NewReader(data))
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Writers = append(out.Writers, tl.Writers...)
	for _, s := range tl.Stretches() {
		out.Stretches = append(out.Stretches, Stretch{Name: s.Name, From: millis(s.First), To: millis(s.Last), Epoch: s.Epoch})
	}
	for i, t := range tl.Terms {
		if i > 0 && t.Name != tl.Terms[i-1].Name && t.First.After(tl.Terms[i-1].Last) {
			out.Gaps = append(out.Gaps, Gap{From: millis(tl.Terms[i-1].Last), To: millis(t.First), Before: tl.Terms[i-1].Name, After: t.Name})
		}
	}
	for _, o := range tl.Overlaps() {
		out.Overlaps = append(out.Overlaps, Stretch{Name: o.A + " and " + o.B, From: millis(o.From), To: millis(o.To)})
	}
	out.Stretches = out.Stretches[max(0, len(out.Stretches)-shownSpans):]
	out.Gaps = out.Gaps[max(0, len(out.Gaps)-shownSpans):]
	return out
}

// tail reads at most tailBytes from the end of the file, from the start of
// a line.
func tail(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(0, info.Size()-tailBytes)
	data, err := io.ReadAll(io.NewSectionReader(f, from, info.Size()-from))
	if err != nil {
		return nil, err
	}
	if from > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	// A line being written is not whole yet: leave it for the next look.
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	return data, nil
}
