package status

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// Other is another recipe's election, at its default path. A terminal that
// follows /election while the class has moved on to the single-file
// election (or back) would only say that nobody speaks; status looks at
// the other elections too, and when its own has nobody and another has
// someone, it says how to follow that one, and shows it meanwhile.
type Other struct {
	Election string // the recipe's name, the value of --election
	Path     string
	Inspect  Inspector
}

// otherView is an Other as last read.
type otherView struct {
	Other
	render Render
}

// nobodySpeaks ends every line that says an election has no leader
// (WriteSequential, WriteSingleFile): how the printer tells that its own
// election is silent and another one is not.
const nobodySpeaks = "nobody speaks"

// speaks reports whether render draws an election with someone in it.
func speaks(render Render, seen fourletter.Sightings) bool {
	if render == nil {
		return false
	}
	var b strings.Builder
	render(&b, seen)
	return !strings.Contains(b.String(), nobodySpeaks)
}

// readOthers reads every other election, and returns the watches that fire
// at their next changes. One that cannot be read is left out: it is only a
// hint.
func (s *Printer) readOthers(ctx context.Context, rz *recoverable.RecoverableZookeeper) []<-chan zk.Event {
	s.others = s.others[:0]
	var wakes []<-chan zk.Event
	for _, o := range s.Others {
		render, wake, err := o.Inspect(ctx, rz)
		if err != nil {
			continue
		}
		s.others = append(s.others, otherView{Other: o, render: render})
		wakes = append(wakes, wake)
	}
	return wakes
}

// writeOthers says, when nobody speaks in the printer's own election, which
// other election has someone in it, what to run to follow that one, and
// draws it.
func (s *Printer) writeOthers(b *strings.Builder, seen fourletter.Sightings) {
	if speaks(s.render, seen) || s.readErr != nil {
		return
	}
	watch := ""
	if s.watching {
		watch = " --watch"
	}
	for _, o := range s.others {
		if !speaks(o.render, seen) {
			continue
		}
		fmt.Fprintf(b, "  but the %s election %s has candidates. This status follows the %s election %s; to follow that one, run:\n",
			o.Election, o.Path, s.Election, s.Path)
		fmt.Fprintf(b, "    speaker status%s --election %s\n", watch, o.Election)
		fmt.Fprintf(b, "election %s (%s)\n", o.Path, o.Election)
		o.render(b, seen)
	}
}

// anyFires returns a channel that is closed when any of wakes fires, or
// never; its goroutines end with ctx.
func anyFires(ctx context.Context, wakes []<-chan zk.Event) <-chan struct{} {
	fired := make(chan struct{})
	var once sync.Once
	for _, w := range wakes {
		if w == nil {
			continue
		}
		go func() {
			select {
			case <-w:
				once.Do(func() { close(fired) })
			case <-ctx.Done():
			}
		}()
	}
	return fired
}
