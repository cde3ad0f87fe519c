package speaker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeLayout is the first field of every line: RFC 3339 in UTC with exactly
// nine fractional digits, so lines sort and align as text.
const TimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// epochKey starts the optional fourth field of a line: the writer's leader
// epoch, the czxid of its election znode.
const epochKey = "epoch="

// ErrMalformed is wrapped by ParseLine's errors: a torn or foreign line.
var ErrMalformed = errors.New("speaker: malformed line")

// Line is one line of the out file, "<time> <name> <counter>[ epoch=<n>]":
// the one place where the format is built and read.
type Line struct {
	// Time is when the line was written.
	Time time.Time
	// Name is the writer's name.
	Name string
	// Counter is the writer's counter, from 1.
	Counter uint64
	// Epoch is the leader epoch the writer confirmed, 0 when it had none
	// (under at-least-one, which does not confirm).
	Epoch int64
	// Extra holds any other key=value fields after the counter, which this
	// version does not write but a later one might.
	Extra []string
}

// Append appends the line, with its newline, to b.
func (l Line) Append(b []byte) []byte {
	b = l.Time.UTC().AppendFormat(b, TimeLayout)
	b = append(b, ' ')
	b = append(b, l.Name...)
	b = append(b, ' ')
	b = strconv.AppendUint(b, l.Counter, 10)
	if l.Epoch > 0 {
		b = append(b, " "+epochKey...)
		b = strconv.AppendInt(b, l.Epoch, 10)
	}
	for _, f := range l.Extra {
		b = append(b, ' ')
		b = append(b, f...)
	}
	return append(b, '\n')
}

// String returns the line without its newline.
func (l Line) String() string {
	b := l.Append(nil)
	return string(b[:len(b)-1])
}

// ParseLine reads one line, without the newline. Anything else, such as a
// line torn by a crash or two lines glued together by a write that was not
// atomic, is an error that errors.Is matches to ErrMalformed.
func ParseLine(s string) (Line, error) {
	f := strings.Split(s, " ")
	if len(f) < 3 {
		return Line{}, fmt.Errorf("%w: %q has %d fields, want at least 3", ErrMalformed, s, len(f))
	}
	t, err := time.Parse(time.RFC3339Nano, f[0])
	if err != nil {
		return Line{}, fmt.Errorf("%w: %q: time: %v", ErrMalformed, s, err)
	}
	if ValidateName(f[1]) != nil {
		return Line{}, fmt.Errorf("%w: %q: bad name", ErrMalformed, s)
	}
	c, err := strconv.ParseUint(f[2], 10, 64)
	if err != nil || c == 0 {
		return Line{}, fmt.Errorf("%w: %q: counter %q", ErrMalformed, s, f[2])
	}
	l := Line{Time: t, Name: f[1], Counter: c}
	for _, field := range f[3:] {
		if v, ok := strings.CutPrefix(field, epochKey); ok {
			if l.Epoch, err = strconv.ParseInt(v, 10, 64); err != nil || l.Epoch <= 0 {
				return Line{}, fmt.Errorf("%w: %q: epoch %q", ErrMalformed, s, v)
			}
			continue
		}
		if !strings.Contains(field, "=") {
			return Line{}, fmt.Errorf("%w: %q: field %q is not key=value", ErrMalformed, s, field)
		}
		l.Extra = append(l.Extra, field)
	}
	return l, nil
}
