package queue

import (
	"context"
	"fmt"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	zq "zkspeaker/recipes/queue"
)

// The order check (order.go) judges a take only against items whose puts
// were acknowledged a session and the slack before the take began, and
// so needs items that wait that long. Left to the producers, whether any
// does is the machine's speed: when the consumers keep up, the queue
// holds one item at a time and no order is judged at all (a broken build
// that takes the newest item first passed a soak on a loaded machine so).
// So the operator puts a backlog before any process starts: one the
// consumers, each spending work on every item, cannot take in under twice
// that wait, however fast the machine. Every take while the backlog lasts
// is judged, whatever the producers manage meanwhile.

// operatorName is the backlog's putter in the record.
const operatorName = "operator"

// backlogSize is how many items the consumers cannot take in less than
// twice a session and the slack, working work on each side by side.
func backlogSize(c *chaos.Config) int {
	return int(2*time.Duration(c.Speakers)*(c.Session+chaos.Slack)/work) + 1
}

// putBacklog puts the backlog through the operator's client, one put in
// four urgent as the producers', and returns the acknowledged puts as the
// record's events (at the moment each was acknowledged).
func putBacklog(ctx context.Context, env *chaos.Env) ([]Event, error) {
	q, err := zq.New(ctx, env.Conn(), path)
	if err != nil {
		return nil, fmt.Errorf("the backlog: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = q.Close(cctx) // its ledger, were it left, is the checker's to find
	}()
	var puts []Event
	for i := range backlogSize(env.Config()) {
		priority := 0
		if i%4 == 3 {
			priority = urgent
		}
		value := fmt.Sprintf("%s-%d", operatorName, i+1)
		item, err := q.PutPriority(ctx, []byte(value), priority)
		if err != nil {
			return nil, fmt.Errorf("the backlog: put %s: %w", value, err)
		}
		puts = append(puts, Event{Name: operatorName, Value: value, At: time.Now(), Item: item})
	}
	return puts, nil
}

// puts counts the producers' acknowledged puts, and the backlog's.
func puts(r Record) (producers, backlog int) {
	for _, p := range r.Puts {
		if isProducer(p.Name) {
			producers++
		} else {
			backlog++
		}
	}
	return producers, backlog
}
