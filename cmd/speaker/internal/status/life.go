package status

import (
	"fmt"
	"strings"
	"time"

	"zkspeaker/internal/fourletter"
)

// writeLife says of a candidate that is not plainly alive what the servers
// tell of its session, and when that session expires unless they hear from
// it again: the moment its znode can go. The time is the clock's, not a
// countdown, so that --watch prints it once, not at every look.
func writeLife(b *strings.Builder, name string, owner int64, s fourletter.Sightings) {
	state, heard, known := s.Life(owner)
	if !known {
		return
	}
	at, expires := clock(heard.At), clock(heard.Expires())
	if heard.Guessed {
		at = "about " + at
		expires = "about " + expires
	}
	switch state {
	case fourletter.Silent:
		fmt.Fprintf(b, "  %s is silent: connected, but no server has heard from it since %s, more than half its %v session: stopped (kill -STOP, Ctrl-Z) or cut off. Its session expires at %s unless it speaks first\n",
			name, at, heard.Timeout, expires)
	case fourletter.CutOff:
		fmt.Fprintf(b, "  %s is cut off: its server %s does not answer, and it is paused until it reaches another. A server last heard from it at %s; its %v session expires at %s unless it does\n",
			name, heard.Server, at, heard.Timeout, expires)
	case fourletter.Gone:
		fmt.Fprintf(b, "  %s's process is gone (not connected): a server last heard from it at %s, so its %v session expires at %s, and its znode goes then\n",
			name, at, heard.Timeout, expires)
	}
}

// clock is a time as the heading shows it, to the millisecond.
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }
