package queue

import (
	"slices"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// lastBefore is name's last take of value before t.
func lastBefore(takes []Event, name, value string, t time.Time) (time.Time, bool) {
	var at time.Time
	for _, e := range takes {
		if e.Name == name && e.Value == value && !e.At.After(t) {
			at = e.At
		}
	}
	return at, !at.IsZero()
}

// lastTake is the last take of value by anyone.
func lastTake(takes []Event, value string) (Event, bool) {
	var last Event
	for _, e := range takes {
		if e.Value == value {
			last = e
		}
	}
	return last, last.Value != ""
}

// hit says whether a fault of one of kinds hit the process called name,
// starting in [from, to].
func hit(in chaos.Input, name string, from, to time.Time, kinds ...chaos.Kind) bool {
	return slices.ContainsFunc(in.Faults, func(f chaos.Fault) bool {
		return f.Target == name && slices.Contains(kinds, f.Kind) && !f.Start.Before(from) && !f.Start.After(to)
	})
}

// anyHit says whether a consumer, name's earlier runs included, was
// killed (a kill, or the restart of a lost create), or frozen or cut off
// for longer than its session, from from to to: a claim it made may have
// stood unsaid until its session expired, or its take been said late.
func anyHit(in chaos.Input, from, to time.Time) bool {
	return slices.ContainsFunc(in.Faults, func(f chaos.Fault) bool {
		return !isProducer(f.Target) && slices.Contains([]chaos.Kind{chaos.Kill, chaos.LostCreate, chaos.StopLong, chaos.HoleLong}, f.Kind) &&
			!f.Start.Before(from) && !f.Start.After(to)
	})
}

// killedAtStop says whether the soak had to kill name at the final stop.
func killedAtStop(in chaos.Input, name string) bool {
	return slices.ContainsFunc(in.Exits, func(e chaos.Exit) bool { return e.Name == name && e.Killed })
}

// takers says who took value when, or "never".
func takers(takes []Event, value string) string {
	var out []string
	for _, e := range takes {
		if e.Value == value {
			out = append(out, e.Name+" at "+chaos.Clock(e.At))
		}
	}
	if len(out) == 0 {
		return "never"
	}
	return strings.Join(out, ", ")
}
