package live

import "fmt"

// handover is a change of leader as zkview saw it in ZooKeeper: At is when
// the notification that the old leader's znode went arrived, in Unix
// milliseconds.
type handover struct {
	At       float64
	From, To string
}

// withHandovers is out with each gap between two writers split where
// ZooKeeper told of the change of leader behind it, when zkview saw one.
// The notification comes after the old writer's last line and before the
// new one's first; a little clock skew between zkview and the speakers is
// allowed for.
func withHandovers(out *Out, hs []handover) *Out {
	if out == nil || len(hs) == 0 {
		return out
	}
	told := *out
	told.Gaps = make([]Gap, len(out.Gaps))
	for i, g := range out.Gaps {
		for _, h := range hs {
			if h.From == g.Before && h.To == g.After && h.At >= g.From-skew && h.At <= g.To+skew {
				g.Told = min(max(h.At, g.From), g.To)
				g.Late = max(h.At-g.To, 0)
			}
		}
		told.Gaps[i] = g
	}
	return &told
}

// skew is how far outside the gap zkview's notification may seem to
// arrive (in milliseconds): zkview and the new leader are told by
// different servers, each as it applies the change, and the lines are
// stamped by other processes' clocks. zkview can only be told after the
// change: the handover it measures is never longer than the real one, and
// one that zkview hears of only after the first line is too short for it
// to time (Gap.Late).
const skew = 50

// hold is how long a new gap that no notification split waits before the
// log tells it (in milliseconds): the new leader's first line can reach
// the file a moment before zkview reads the change of leader from
// ZooKeeper, and the log should tell the gap once, split.
const hold = 1000

// gapKey names a gap: where it starts, and who wrote after it.
type gapKey struct {
	from  float64
	after string
}

// writers tells who writes now, after how long, and how much of that was
// the handover; and each overlap. The first look at the file tells its
// history, each line at its own time.
func (h *Hub) writers(say sayerAt, old, next *Out) {
	if next == nil {
		return
	}
	history := old == nil
	if history {
		if len(next.Stretches) > 0 {
			first := next.Stretches[0]
			say(first.From, "leader", "%s writes to the out file (epoch %s)", first.Name, epoch(first.Epoch))
		}
		old = &Out{}
	}
	told := map[gapKey]bool{}
	for _, g := range next.Gaps {
		k := gapKey{g.From, g.After}
		if h.told[k] {
			told[k] = true
			continue
		}
		if !history && g.Told == 0 && millis(h.now())-g.To < hold {
			continue // it may be split in a moment
		}
		told[k] = true
		switch {
		case g.Late > 0:
			say(g.To, "leader", "%s writes to the out file: a handover shorter than zkview can time (it was told %s after the first line), after %s idle since %s's last line",
				g.After, ms(g.Late), ms(g.Told-g.From), g.Before)
		case g.Told > 0:
			say(g.To, "leader", "%s writes to the out file: handover %s (ZooKeeper's notification to its first line), after %s idle since %s's last line",
				g.After, ms(g.To-g.Told), ms(g.Told-g.From), g.Before)
		default:
			say(g.To, "leader", "%s writes to the out file, %s after %s's last line", g.After, ms(g.To-g.From), g.Before)
		}
	}
	h.told = told
	for _, o := range next.Overlaps {
		if !containsSpan(old.Overlaps, o) {
			say(o.From, "overlap", "%s both wrote at once", o.Name)
		}
	}
}

// ms is a span given in milliseconds, as a person reads it: "18 ms",
// "6.18 s".
func ms(d float64) string {
	if d < 1000 {
		return fmt.Sprintf("%.0f ms", d)
	}
	return fmt.Sprintf("%.2f s", d/1000)
}

func containsSpan(ss []Stretch, s Stretch) bool {
	for _, x := range ss {
		if x.From == s.From && x.Name == s.Name {
			return true
		}
	}
	return false
}
