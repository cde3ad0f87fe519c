package barrier

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/cmd/speaker/internal/chaos"
	"zkspeaker/nodemonitor"
)

// Record is what the soak keeps for the checker besides the out file.
type Record struct {
	// Slots are the member processes' names.
	Slots []string
	// Leaves are the moments members saw their round empty.
	Leaves []Leave
	// Left are member znodes still there after every member exited.
	Left []string
}

// Leave is a member seeing its round empty: what recipes/barrier logs
// when Leave returns.
type Leave struct {
	Name  string
	Round int64
	At    time.Time
}

// leftMark starts the message a member logs once its round is empty.
const leftMark = `msg="every member of the round has left"`

// begin keeps the operator's client for the look at the members at the
// end; the record is read then.
func begin(_ context.Context, env *chaos.Env) (*chaos.Running, error) {
	c := env.Config()
	slots := chaos.Numbered("s", c.Speakers)
	return &chaos.Running{Record: func() any {
		return Record{Slots: slots, Leaves: readLeaves(c.Dir, slots), Left: leftBehind(env, c.Session)}
	}}, nil
}

// record is the soak's record, empty when it has none.
func record(in chaos.Input) Record {
	r, _ := in.Record.(Record)
	return r
}

// readLeaves reads every member's leave from the slots' logs in dir, in
// order of time.
func readLeaves(dir string, slots []string) []Leave {
	var out []Leave
	chaos.EachLogLine(dir, slots, func(name, line string) {
		if l, ok := parseLeave(name, line); ok {
			out = append(out, l)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// parseLeave reads a log line of slog's text form that says a member's
// round is empty.
func parseLeave(name, line string) (Leave, bool) {
	if !strings.Contains(line, leftMark) {
		return Leave{}, false
	}
	at, okT := chaos.LogTime(line)
	v, _ := chaos.LogField(line, "round")
	round, err := strconv.ParseInt(v, 10, 64)
	return Leave{Name: name, At: at, Round: round}, okT && err == nil
}

// leftBehind lists the member znodes under the barrier, waiting up to a
// session and a second for those of killed members to expire with their
// sessions: a leak only if they stay.
func leftBehind(env *chaos.Env, session time.Duration) []string {
	ctx, cancel := context.WithTimeout(context.Background(), session+5*time.Second)
	defer cancel()
	deadline := time.Now().Add(session + time.Second)
	for {
		children, err := env.Conn().Children(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return []string{fmt.Sprintf("%s (could not list it: %v)", path, err)}
		}
		members := nodemonitor.Line(children)
		if len(members) == 0 || time.Now().After(deadline) {
			var out []string
			for _, m := range members {
				out = append(out, path+"/"+m.Name)
			}
			return out
		}
		chaos.Sleep(ctx, 100*time.Millisecond)
	}
}
