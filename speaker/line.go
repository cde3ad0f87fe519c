package speaker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrMalformed is wrapped by ParseLine's errors: a torn or foreign line.
var ErrMalformed = errors.New("speaker: malformed line")

// Line is one parsed line of the out file.
type Line struct {
	// Time is when the line was written.
	Time time.Time
	// Name is the writer's name.
	Name string
	// Counter is the writer's counter, from 1.
	Counter uint64
	// Extra holds any fields after the counter.
	Extra []string
}

// ParseLine reads "<time> <name> <counter>[ <more>...]", without the
// newline. Anything else, such as a line torn by a crash, is an error that
// errors.Is matches to ErrMalformed.
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
	return Line{Time: t, Name: f[1], Counter: c, Extra: f[3:]}, nil
}
