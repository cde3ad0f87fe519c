package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recoverable"
)

// sample is the state of a case at one moment: what its contenders'
// sessions have exchanged, and the servers' last transaction.
type sample struct {
	recoverable.Traffic // summed over the contenders
	zxid                int64
}

// settle waits until the contenders' traffic has not moved for 50 ms, and
// at least 20 ms have passed: a joining candidate has its watch, and a
// herd, if any, has had its say. It then reads the zxid.
func (b *Bench) settle(ctx context.Context, cs []contender) (sample, error) {
	time.Sleep(20 * time.Millisecond)
	prev := total(cs)
	for {
		if err := ctx.Err(); err != nil {
			return sample{}, err
		}
		time.Sleep(50 * time.Millisecond)
		cur := total(cs)
		if cur == prev {
			break
		}
		prev = cur
	}
	zxid, err := b.zxid(ctx)
	return sample{Traffic: prev, zxid: zxid}, err
}

// total sums the traffic of cs.
func total(cs []contender) recoverable.Traffic {
	var t recoverable.Traffic
	for _, c := range cs {
		s := c.session().Traffic()
		t.Requests += s.Requests
		t.Writes += s.Writes
		t.Events += s.Events
	}
	return t
}

// delta is what happened between two samples of one session.
func delta(t0, t1 recoverable.Traffic) recoverable.Traffic {
	return recoverable.Traffic{Requests: t1.Requests - t0.Requests, Writes: t1.Writes - t0.Writes, Events: t1.Events - t0.Events}
}

// zxid is the newest transaction id among the servers that answer srvr: in
// an ensemble, every committed write reaches it.
func (b *Bench) zxid(ctx context.Context) (int64, error) {
	newest, answered := int64(0), false
	for _, addr := range b.servers {
		info := fourletter.Srvr(ctx, addr)
		if info.Mode == "down" {
			continue // an ensemble may have a server down; ask the others
		}
		answered = true
		newest = max(newest, info.Zxid)
	}
	if !answered {
		return 0, fmt.Errorf("no server answered srvr at %s", strings.Join(b.servers, ","))
	}
	return newest, nil
}
