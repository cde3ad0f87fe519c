package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"zkspeaker/internal/fourletter"
)

// pings counts the pings that the candidates' sessions sent between t0 and
// t1. go-zookeeper pings on a ticker, every third of the negotiated
// timeout from the moment it connected, whatever else it sends; the
// sessions of one batch tick together, so an average rate would be wrong
// for any one window, and the ticks are counted instead.
func pings(cs []*candidate, t0, t1 time.Time) int64 {
	n := int64(0)
	for _, c := range cs {
		every := c.rz.SessionTimeout() / 3
		if every <= 0 {
			continue
		}
		n += int64(t1.Sub(c.connected)/every) - int64(t0.Sub(c.connected)/every)
	}
	return n
}

// sample is the state of the world at one moment: notifications delivered
// to the live candidates, and the packets each server has received.
type sample struct {
	at            time.Time
	notifications int64
	received      map[string]int64 // by server; a server that is down is absent
	probes        map[string]int64 // our srvr calls to it so far: each is a packet too
}

// requests is the packets received since s0 that were not our own srvr,
// counted over the servers that answered both times.
func (s sample) requests(s0 sample) int64 {
	n := int64(0)
	for addr, r := range s.received {
		if r0, ok := s0.received[addr]; ok {
			n += r - r0 - (s.probes[addr] - s0.probes[addr])
		}
	}
	return n
}

func (b *Bench) sample(ctx context.Context, live []*candidate) (sample, error) {
	if err := ctx.Err(); err != nil {
		return sample{}, err
	}
	s := sample{at: time.Now(), received: map[string]int64{}, probes: map[string]int64{}}
	for _, c := range live {
		s.notifications += c.mon.Notifications()
	}
	for _, addr := range b.servers {
		info := fourletter.Srvr(ctx, addr)
		if info.Mode == "down" {
			continue // an ensemble may have a server down; count the others
		}
		b.probes[addr]++
		s.received[addr], s.probes[addr] = info.Received, b.probes[addr]
	}
	if len(s.received) == 0 {
		return s, fmt.Errorf("no server answered srvr at %s", strings.Join(b.servers, ","))
	}
	return s, nil
}

// settle waits until the notification count has not moved for 50 ms, and
// at least 20 ms have passed: the herd, if any, has had its say.
func (b *Bench) settle(ctx context.Context, live []*candidate) (sample, error) {
	time.Sleep(20 * time.Millisecond)
	prev, err := b.sample(ctx, live)
	for err == nil {
		time.Sleep(50 * time.Millisecond)
		var cur sample
		if cur, err = b.sample(ctx, live); err == nil && cur.notifications == prev.notifications {
			return cur, nil
		}
		prev = cur
	}
	return prev, err
}
