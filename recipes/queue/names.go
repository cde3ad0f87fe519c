package queue

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// An item's name is item-RRR-SSSSSSSSSS: RRR is its rank, 999 less its
// priority, and SSSSSSSSSS the sequence number ZooKeeper appended at the
// put. Both have a fixed width, so the names sorted as strings are the
// order of takes: the highest priority first, and within a priority the
// order of the puts. The sequence number is the parent's count of child
// changes, shared by every priority, and ZooKeeper never hands one out
// twice under a parent (it wraps at 2^31, which is a lifetime of puts).
const (
	itemPrefix = "item-"
	// MaxPriority is the highest priority; 0 is the lowest, and the
	// default of a put.
	MaxPriority = 999
	claimName   = "claim" // an AtLeastOnce consumer's ephemeral child of the item
)

// Entry is an item as List shows it.
type Entry struct {
	Name     string // the item's znode name, in the queue's znode
	Priority int
	Seq      int64 // the sequence number of its put
	Value    []byte
	Claimed  bool // an AtLeastOnce consumer holds it and has not acknowledged it
}

// prefixFor is the name a put asks for; ZooKeeper appends the sequence.
func prefixFor(priority int) string {
	return fmt.Sprintf("%s%03d-", itemPrefix, MaxPriority-priority)
}

// checkPriority refuses a priority the name cannot hold.
func checkPriority(p int) error {
	if p < 0 || p > MaxPriority {
		return &InvalidError{Field: "priority", Problem: fmt.Sprintf("%d is outside 0 to %d", p, MaxPriority)}
	}
	return nil
}

// parseName reads an item's priority and sequence number from its name;
// ok is false for a child that is not an item (the ledgers).
func parseName(name string) (priority int, seq int64, ok bool) {
	rest, found := strings.CutPrefix(name, itemPrefix)
	if !found || len(rest) != 14 || rest[3] != '-' {
		return 0, 0, false
	}
	rank, err1 := strconv.Atoi(rest[:3])
	seq, err2 := strconv.ParseInt(rest[4:], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return MaxPriority - rank, seq, true
}

// items keeps the children that are items, in the order of takes.
func items(children []string) []string {
	var out []string
	for _, c := range children {
		if _, _, ok := parseName(c); ok {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
