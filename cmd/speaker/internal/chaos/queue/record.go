package queue

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
	zq "zkspeaker/recipes/queue"
)

// Record is what the soak keeps for the checker besides the out file:
// what the processes' logs say they did, and what was left.
type Record struct {
	Puts  []Event // acknowledged puts: the producer said the item is in
	Takes []Event // items a consumer took (claimed) and printed
	Acks  []Event // items a consumer acknowledged: deleted for good
	Lost  []Event // claims that ended before their Ack
	// Unsettled are Acks whose outcome the consumer could not learn.
	Unsettled []Event
	// Left are the values still in the queue once every process ended.
	Left []string
	// Ledgers are the ledgers left under the queue then.
	Ledgers []string
	// Err is why the queue could not be listed at the end, or "".
	Err string
}

// Event is one line of a process's log about one item.
type Event struct {
	Name  string // the process
	Value string
	At    time.Time
	// Item is the item's znode name, item-RRR-SSSSSSSSSS: the names
	// sorted are the queue's order. "" when a put's reply was lost.
	Item string
}

// The messages of zkqueue's log the record is read from.
const (
	putMark  = `msg="the item is in the queue"`
	takeMark = `msg="took an item"`
	ackMark  = `msg="acknowledged the item: it is deleted"`
	lostMark = `msg="the claim ended before the work was done`
	// unsettledMark starts the warning of an Ack left unknown.
	unsettledMark = `msg="the Ack's reply was lost`
)

// record is the soak's record, empty when it has none.
func record(in chaos.Input) Record {
	r, _ := in.Record.(Record)
	return r
}

// readRecord reads the slots' logs in dir, each kind of event in order of
// time.
func readRecord(dir string, slots []string, left []string, err error) Record {
	r := Record{Left: left}
	if err != nil {
		r.Err = err.Error()
	}
	chaos.EachLogLine(dir, slots, func(name, line string) {
		e, ok := parseEvent(name, line)
		switch {
		case !ok:
		case strings.Contains(line, putMark):
			r.Puts = append(r.Puts, e)
		case strings.Contains(line, takeMark):
			r.Takes = append(r.Takes, e)
		case strings.Contains(line, ackMark):
			r.Acks = append(r.Acks, e)
		case strings.Contains(line, lostMark):
			r.Lost = append(r.Lost, e)
		case strings.Contains(line, unsettledMark):
			r.Unsettled = append(r.Unsettled, e)
		}
	})
	for _, es := range [][]Event{r.Puts, r.Takes, r.Acks, r.Lost, r.Unsettled} {
		sort.SliceStable(es, func(i, j int) bool { return es[i].At.Before(es[j].At) })
	}
	return r
}

// parseEvent reads the time and value of a log line of slog's text form.
func parseEvent(name, line string) (Event, bool) {
	at, okT := chaos.LogTime(line)
	v, okV := chaos.LogField(line, "value")
	item, _ := chaos.LogField(line, "item")
	if !strings.HasPrefix(item, "item-") {
		item = ""
	}
	return Event{Name: name, At: at, Value: v, Item: item}, okT && okV
}

// leftInQueue lists the values still in the queue, and its ledgers,
// through the operator's client.
func leftInQueue(env *chaos.Env) (values, ledgers []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	entries, err := zq.List(ctx, env.Conn(), path)
	if err != nil {
		return nil, nil, fmt.Errorf("listing %s at the end: %w", path, err)
	}
	for _, e := range entries {
		values = append(values, string(e.Value))
	}
	if ledgers, err = zq.Ledgers(ctx, env.Conn(), path); err != nil {
		return nil, nil, fmt.Errorf("listing the ledgers of %s at the end: %w", path, err)
	}
	return values, ledgers, nil
}
