package lock

import (
	"bytes"
	"strings"
)

// A revoke request is a mark in the data of a holder's znode, as in the
// ZooKeeper website's "Revocable Shared Locks": the one who wants the lock
// sets the holder's data, and the holder, which watches its own znode,
// sees it and lets go if it agrees to. Our znodes' data is already the
// contender's name, which zkCli.sh, `speaker status` and zkview show, so
// the mark does not replace it: it is a second line, and the name stays
// the first.
//
//	host:4242
//	revoke requested by host:5151
//
// The mark belongs to that znode alone. A holder whose znode is replaced
// (deleted by hand, or gone with an expired session) has lost the lock
// anyway, and the mark went with the old znode. A mark on a waiter's znode
// (Revoke marks only holders, but zkCli.sh can set any) is honoured the
// moment that waiter comes to hold: a holder reads its data as soon as it
// holds, before it waits for changes.

// RevokeMark starts the line that marks a revoke request, after the
// contender's name and a newline; " by WHO" may follow it.
const RevokeMark = "revoke requested"

// MarkRevoke returns a contender's znode data with a revoke request by who
// added ("" leaves the requester out). Data that has a mark already keeps
// it, the first request's.
func MarkRevoke(data []byte, by string) []byte {
	if _, _, marked := ReadMark(data); marked {
		return data
	}
	line := RevokeMark
	if by != "" {
		line += " by " + by
	}
	out := make([]byte, 0, len(data)+1+len(line))
	out = append(out, data...)
	out = append(out, '\n')
	return append(out, line...)
}

// ReadMark reads a contender's znode data: the contender's name, and
// whether a revoke was requested, and by whom ("" when the request did not
// say). Data without a mark is the name alone. zkview and `zklock revoke`
// read the line with it.
func ReadMark(data []byte) (name, by string, marked bool) {
	i := bytes.LastIndex(data, []byte("\n"+RevokeMark))
	if i < 0 {
		return string(data), "", false
	}
	rest := string(data[i+1+len(RevokeMark):])
	if rest != "" && !strings.HasPrefix(rest, " by ") || strings.Contains(rest, "\n") {
		return string(data), "", false // a name's own line that only looks like one
	}
	return string(data[:i]), strings.TrimPrefix(rest, " by "), true
}
