package chaos

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A recipe's checker may need what its processes logged, beside the lines
// they wrote: a reservation stored, a round seen empty, an item taken.
// The soak keeps each process's log as logs/NAME.log in its folder, in
// slog's text form (time=... level=... msg="..." key=value ...).

// EachLogLine calls fn with every line of the logs of names in the soak's
// folder dir, name by name, line by line. A log that is not there (a slot
// that never started) is skipped.
func EachLogLine(dir string, names []string, fn func(name, line string)) {
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, "logs", name+".log"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			fn(name, sc.Text())
		}
		_ = f.Close()
	}
}

// LogField returns the value of key in a log line of slog's text form, for
// a value written without quotes (a number, a name, a time).
func LogField(line, key string) (string, bool) {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// LogTime returns the time of a log line of slog's text form.
func LogTime(line string) (time.Time, bool) {
	v, ok := LogField(line, "time")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}
