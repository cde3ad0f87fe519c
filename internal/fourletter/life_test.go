package fourletter

import (
	"testing"
	"time"
)

// TestLife reasons about a session from what the servers said, now and at
// the look before, as status and zkview show it: how it stands, and when
// it expires unless the servers hear from it again.
func TestLife(t *testing.T) {
	const timeout = 5 * time.Second
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	on := func(addr string, heard time.Time) Heard { return Heard{Timeout: timeout, At: heard, Server: addr} }
	// before: session 1 was on server a, last heard at t0.
	before := Sightings{At: t0, where: map[int64]string{1: "a"}, heard: map[int64]Heard{1: on("a", t0)}}
	look := func(at time.Time, complete bool, answered []string, connected map[int64]Heard) Sightings {
		s := Sightings{At: at, complete: complete, where: map[int64]string{}, heard: map[int64]Heard{}, answered: map[string]bool{}}
		for _, a := range answered {
			s.answered[a] = true
		}
		for id, h := range connected {
			s.where[id], s.heard[id] = h.Server, h
		}
		s.remember(before)
		return s
	}
	for _, c := range []struct {
		name      string
		now       Sightings
		want      LifeState
		wantKnown bool
	}{
		{"connected, heard a ping ago", look(t0.Add(2*time.Second), true, []string{"a"}, map[int64]Heard{1: on("a", t0.Add(1500*time.Millisecond))}), Alive, true},
		{"connected, not heard for more than half its timeout", look(t0.Add(3*time.Second), true, []string{"a"}, map[int64]Heard{1: on("a", t0)}), Silent, true},
		{"listed nowhere, every server answered", look(t0.Add(time.Second), true, []string{"a", "b"}, nil), Gone, true},
		{"its server does not answer", look(t0.Add(time.Second), false, []string{"b"}, nil), CutOff, true},
		{"long after it expired", look(t0.Add(timeout+forget+time.Second), true, []string{"a"}, nil), Gone, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			state, heard, known := c.now.Life(1)
			if state != c.want || known != c.wantKnown {
				t.Fatalf("Life = %v (known %v), want %v (known %v)", state, known, c.want, c.wantKnown)
			}
			if known && state != Alive && !heard.Expires().Equal(heard.At.Add(timeout)) {
				t.Errorf("expires at %v, want %v after it was last heard from (%v)", heard.Expires(), timeout, heard.At)
			}
			if c.want == Gone && known && !heard.Expires().Equal(t0.Add(timeout)) {
				t.Errorf("a session gone since t0 expires at %v, want t0+%v", heard.Expires(), timeout)
			}
		})
	}
	// A session on a server elsewhere, whose clock cannot be read here.
	unknown := Sightings{where: map[int64]string{2: "far"}, heard: map[int64]Heard{}, answered: map[string]bool{"far": true}}
	if state, _, _ := unknown.Life(2); state != Alive {
		t.Errorf("a connected session whose last word cannot be timed is %v, want connected", state)
	}
}

// TestHeardAt believes an lresp only when it is a time a live session can
// have been heard from, on this machine's monotonic clock.
func TestHeardAt(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const mono, timeout = 1_000_000, 5 * time.Second
	for _, c := range []struct {
		lresp int64
		want  time.Time
	}{
		{mono - 1200, now.Add(-1200 * time.Millisecond)},
		{mono + 3, now}, // the clocks read a moment apart
		{mono - 3_600_000, time.Time{}},
		{mono + 50_000, time.Time{}},
	} {
		if got := heardAt(c.lresp, mono, now, timeout); !got.Equal(c.want) {
			t.Errorf("heardAt(lresp %d, now %d) = %v, want %v", c.lresp, int64(mono), got, c.want)
		}
	}
}
