// Package sequence hands out unique IDs from ZooKeeper znodes by
// compare-and-set, as the article "Using Zookeeper to Implement a Redundant
// Persistence Service" does, and keeps them unique even after ZooKeeper
// loses everything: an ID is handed out only below a limit that an elected
// persistence process wrote to durable storage first.
//
// Each sequence is one znode under /all-sequences. Its data holds the next
// ID to hand out and the limit, which only the persistence leader raises,
// after it has stored a reservation at least as high (see Persister).
// Workers (Sequence.Next) never allocate at or past the limit.
package sequence

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"
)

// DefaultRoot is the znode under which every sequence lives, as in the
// article: /all-sequences/NAME.
const DefaultRoot = "/all-sequences"

// recentWrites is how many writers' tokens a sequence's znode remembers.
// A worker whose write lost its reply looks for its token there (see
// Sequence.settle): when fewer writes than this came after the version it
// read, the answer is certain.
const recentWrites = 32

// ErrCorrupt is wrapped when a sequence's znode holds data that is not a
// sequence's state: someone wrote to it by hand.
var ErrCorrupt = errors.New("sequence: not a sequence's data")

// state is what a sequence's znode holds, as JSON, so that zkCli.sh shows
// it plainly: {"next":1200,"limit":2000,"incarnation":"9b1e…","recent":["3f0c…",…]}
// for compare-and-set, {"mode":"counter","base":1,"limit":2000,"incarnation":"9b1e…"}
// for a counter, whose next ID is base plus its counter's version.
type state struct {
	// Mode is how the workers take IDs; empty in a sequence made before
	// there were two modes, which is ModeCAS.
	Mode Mode `json:"mode,omitempty"`
	// Next is the next ID to hand out, in ModeCAS: every ID below it was
	// handed out (or skipped, loudly), none at or above it. A counter's
	// znode does not hold it: it is Base plus the counter's version.
	Next int64 `json:"next,omitempty"`
	// Base is the ID of a counter's first version, in ModeCounter: version
	// v of the counter is ID Base+v-1.
	Base int64 `json:"base,omitempty"`
	// Limit is where workers stop: they allocate only IDs below it. The
	// persistence leader raises it, and only to a value it stored first.
	Limit int64 `json:"limit"`
	// Incarnation is a random token made with the sequence (by Create, or
	// by Restore from the store), copied by every write. A reservation in
	// the Store of another incarnation means that ZooKeeper lost the
	// sequence and someone made it anew instead of restoring it: its next
	// ID may lie below IDs handed out before (see term.raise).
	Incarnation string `json:"incarnation"`
	// Recent holds the tokens of the last writes, newest last: how a
	// writer whose reply was lost learns whether its write landed.
	Recent []string `json:"recent,omitempty"`
}

func decodeState(data []byte) (state, error) {
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return state{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	s.Mode = s.Mode.or()
	bad := s.Next < 0 || s.Limit < s.Next || ValidateName(s.Incarnation) != nil
	switch s.Mode {
	case ModeCAS:
		bad = bad || s.Base != 0
	case ModeCounter:
		bad = bad || s.Next != 0 || s.Base < 0 || s.Limit < s.Base
	default:
		bad = true
	}
	if bad {
		return state{}, fmt.Errorf("%w: mode %q, next %d, base %d, limit %d, incarnation %q", ErrCorrupt, s.Mode, s.Next, s.Base, s.Limit, s.Incarnation)
	}
	return s, nil
}

// counter reports whether the sequence takes its IDs from a counter.
func (s state) counter() bool { return s.Mode == ModeCounter }

// nextAt is the next ID to hand out when the counter (ModeCounter) is at
// version cver: the sequence's own Next in ModeCAS.
func (s state) nextAt(cver int32) int64 {
	if s.counter() {
		return s.Base + int64(cver)
	}
	return s.Next
}

// marker is the child znode that exists exactly as long as this
// incarnation of the sequence at path. Every write checks it in the same
// multi: a znode's version alone does not say which znode it belongs to,
// and after a delete and create (or a wipe and restore) a new znode goes
// through the same versions again, so a write prepared against the old
// one (a worker's cached version) could otherwise land on the new one.
func (s state) marker(path string) string { return path + "/" + s.Incarnation }

// setOps is a compare-and-set of path from s, at version ver, to want:
// the marker's check, then the version-checked write.
func (s state) setOps(path string, ver int32, want state) []any {
	return []any{
		&zk.CheckVersionRequest{Path: s.marker(path), Version: -1},
		&zk.SetDataRequest{Path: path, Data: want.encode(), Version: ver},
	}
}

// renewOps is setOps that also moves the sequence to want's incarnation:
// the old marker goes and want's comes, in the same multi, so that no
// state of the old incarnation, cached anywhere, can be written again.
func (s state) renewOps(path string, ver int32, want state, acl []zk.ACL) []any {
	return []any{
		&zk.DeleteRequest{Path: s.marker(path), Version: -1},
		&zk.SetDataRequest{Path: path, Data: want.encode(), Version: ver},
		&zk.CreateRequest{Path: want.marker(path), Acl: acl},
	}
}

func (s state) encode() []byte {
	data, err := json.Marshal(s)
	if err != nil {
		panic(err) // two integers and strings cannot fail to encode
	}
	return data
}

// written returns the state after a write by the holder of token: the
// token joins the recent ones, and the oldest leaves when there are more
// than recentWrites.
func (s state) written(token string) state {
	s.Recent = append(slices.Clone(s.Recent), token)
	if n := len(s.Recent); n > recentWrites {
		s.Recent = s.Recent[n-recentWrites:]
	}
	return s
}

// landed reports whether the write with token, made on the version read,
// is in s, found at version now: yes, no, or unknown when more writes came
// after read than s remembers.
func (s state) landed(token string, read, now int32) (landed, certain bool) {
	if slices.Contains(s.Recent, token) {
		return true, true
	}
	return false, int(now-read) <= len(s.Recent)
}
