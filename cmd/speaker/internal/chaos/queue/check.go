package queue

import (
	"fmt"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// The checks, under at-least-once: every acknowledged put is taken for
// good exactly once (acknowledged once, and gone), or is still in the
// queue at the end; a consumer takes an item only while nobody else holds
// it; a consumer takes the first item it may, by priority and then by the
// order of the puts (order.go); and no ledger is left.
const (
	AckedTwice     = "items acknowledged twice"
	TakenWhileHeld = "items taken while another consumer held them"
	Lost           = "acknowledged puts lost"
	AckedButLeft   = "items acknowledged but still in the queue"
	OutOfOrder     = "items taken out of the queue's order"
	NotListed      = "queue not listed at the end"
	LedgersLeft    = "ledgers left at the end"
)

// check is the recipe's checker.
func check(in chaos.Input, _ []chaos.Line) []chaos.Section {
	r := record(in)
	notListed := chaos.Section{What: NotListed}
	if r.Err != "" {
		notListed.Found = []chaos.Finding{{Detail: r.Err}}
	}
	return []chaos.Section{ackedTwice(r), takenWhileHeld(in, r), lost(in, r), ackedButLeft(r), outOfOrder(in, r), notListed, ledgersLeft(in, r)}
}

// ledgersLeft finds the ledgers left once every process ended: the
// consumers reaped those of the processes killed in the soak before the
// final stop (wind.go), and closed their own at it, so only a process the
// soak had to kill at the stop may have left one.
func ledgersLeft(in chaos.Input, r Record) chaos.Section {
	s := chaos.Section{What: LedgersLeft, Mark: "ledger left"}
	killed := 0
	for _, e := range in.Exits {
		if e.Killed {
			killed++
		}
	}
	if r.Err == "" && len(r.Ledgers) > killed {
		s.Found = []chaos.Finding{finding(in.End, "%d ledgers left under %s/ledgers, %d processes killed at the stop: %s",
			len(r.Ledgers), path, killed, strings.Join(r.Ledgers, ", "))}
	}
	return s
}

// finding is a finding at t.
func finding(t time.Time, format string, a ...any) chaos.Finding {
	return chaos.Finding{Time: t, Detail: fmt.Sprintf(format, a...)}
}

// ackedTwice finds every Ack of an item acknowledged before.
func ackedTwice(r Record) chaos.Section {
	s := chaos.Section{What: AckedTwice, Mark: "acknowledged twice"}
	first := map[string]Event{}
	for _, a := range r.Acks {
		if was, dup := first[a.Value]; dup {
			s.Found = append(s.Found, finding(a.At, "%s acknowledged by %s, acknowledged already by %s at %s", a.Value, a.Name, was.Name, chaos.Clock(was.At)))
			continue
		}
		first[a.Value] = a
	}
	return s
}

// takenWhileHeld finds, for each Ack, the takes of its item by another
// consumer between the acknowledging consumer's take and its Ack: its
// claim stood all along, since the Ack succeeded. A take logged late by a
// consumer frozen or cut off for longer than its session is explained.
func takenWhileHeld(in chaos.Input, r Record) chaos.Section {
	s := chaos.Section{What: TakenWhileHeld, Mark: "taken while held"}
	for _, a := range r.Acks {
		took, ok := lastBefore(r.Takes, a.Name, a.Value, a.At)
		if !ok {
			continue
		}
		for _, t := range r.Takes {
			if t.Value != a.Value || t.Name == a.Name || !t.At.After(took) || !t.At.Before(a.At) {
				continue
			}
			if hit(in, t.Name, took.Add(-in.Session), t.At, chaos.StopLong, chaos.HoleLong) {
				continue
			}
			s.Found = append(s.Found, finding(t.At, "%s taken by %s while %s held it (taken at %s, acknowledged at %s)",
				t.Value, t.Name, a.Name, chaos.Clock(took), chaos.Clock(a.At)))
		}
	}
	return s
}

// lost finds the acknowledged puts that were neither acknowledged by a
// consumer nor left in the queue. One whose last taker was killed after
// it took the item is explained: its Ack may have applied unsaid; so is
// one whose Ack the consumer said it could not settle.
func lost(in chaos.Input, r Record) chaos.Section {
	s := chaos.Section{What: Lost, Mark: "lost"}
	if r.Err != "" {
		return s
	}
	gone := map[string]bool{}
	for _, a := range r.Acks {
		gone[a.Value] = true
	}
	for _, v := range r.Left {
		gone[v] = true
	}
	for _, u := range r.Unsettled {
		gone[u.Value] = true // deleted, or back in the queue: either is kept
	}
	for _, p := range r.Puts {
		if gone[p.Value] {
			continue
		}
		if t, ok := lastTake(r.Takes, p.Value); ok && (hit(in, t.Name, t.At, in.End.Add(time.Hour), chaos.Kill) || killedAtStop(in, t.Name)) {
			continue
		}
		s.Found = append(s.Found, finding(p.At, "%s, put by %s at %s, was never acknowledged by a consumer and is not in the queue (taken: %s)",
			p.Value, p.Name, chaos.Clock(p.At), takers(r.Takes, p.Value)))
	}
	return s
}

// ackedButLeft finds items acknowledged that are still in the queue.
func ackedButLeft(r Record) chaos.Section {
	s := chaos.Section{What: AckedButLeft, Mark: "acknowledged, not gone"}
	left := map[string]bool{}
	for _, v := range r.Left {
		left[v] = true
	}
	for _, a := range r.Acks {
		if left[a.Value] {
			s.Found = append(s.Found, finding(a.At, "%s acknowledged by %s, and still in the queue at the end", a.Value, a.Name))
		}
	}
	return s
}
