package speaker

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// DefaultInterval is the time between lines, the articles' one-second delay.
const DefaultInterval = time.Second

// Option configures a Speaker.
type Option func(*options)

type options struct {
	name     string
	interval time.Duration
	fsync    bool
	fence    bool
	logger   *slog.Logger
}

// WithName sets the name on each line; the default is the process id.
func WithName(name string) Option { return func(o *options) { o.name = name } }

// WithInterval sets the time between lines.
func WithInterval(d time.Duration) Option { return func(o *options) { o.interval = d } }

// WithFsync turns the fsync after each line on (the default) or off.
func WithFsync(on bool) Option { return func(o *options) { o.fsync = on } }

// WithFence makes the Speaker refuse to append when the file's last line
// carries a higher epoch than its own: storage-side fencing, the only thing
// that fully stops a stale leader. It needs SetConfirm, which supplies the
// epoch.
func WithFence(on bool) Option { return func(o *options) { o.fence = on } }

// WithLogger sets where the Speaker logs its state changes.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

func buildOptions(opts []Option) (options, error) {
	o := options{name: strconv.Itoa(os.Getpid()), interval: DefaultInterval, fsync: true, logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := ValidateName(o.name); err != nil {
		return o, err
	}
	if o.interval <= 0 {
		return o, fmt.Errorf("speaker: interval must be positive, got %v", o.interval)
	}
	return o, nil
}

// ValidateName rejects a name that would break the line format: empty, or
// containing whitespace or control characters.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("speaker: name must not be empty")
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }); i >= 0 {
		return fmt.Errorf("speaker: name %q contains whitespace or a control character", name)
	}
	return nil
}
