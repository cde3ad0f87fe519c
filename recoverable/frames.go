package recoverable

import "encoding/binary"

// The heads the two directions keep of each frame (its 4-byte length
// included). A reply's head is its xid, zxid and error code. A request's is
// its xid and opcode, and, for the reads that may set a watch, the path and
// the watch flag behind it; longer paths than this are not worth keeping.
const (
	replyHeadLen   = 4 + 16
	requestHeadLen = 4 + 8 + 4 + 1024 + 1
)

// The reads that may set a watch: exists, getData, getChildren and
// getChildren2, each a path and then the watch flag.
const (
	opGetData     = 4
	opGetChildren = 8
)

// errNoNode is ZooKeeper's error code for a missing znode.
const errNoNode = -101

// frames follows a stream of ZooKeeper frames, each a 4-byte length and a
// body, and hands over each frame's head, its first bytes up to keep (the
// length included), once they have arrived. Every body has at least 8
// bytes (a ping is exactly that), so a head has a request's xid and opcode,
// or a reply's xid and the top of its zxid.
type frames struct {
	keep int    // at least 12
	buf  []byte // the head of the current frame
	got  int    // bytes of the current frame seen so far
	size int    // the current frame's length, its 4-byte prefix included
	want int    // how much of it the head holds
}

func (f *frames) feed(p []byte, head func(head []byte)) {
	if len(f.buf) < max(f.keep, 12) {
		f.buf = make([]byte, max(f.keep, 12))
	}
	for len(p) > 0 {
		switch {
		case f.got < 4:
			k := copy(f.buf[f.got:4], p)
			f.got += k
			p = p[k:]
			if f.got < 4 {
				return
			}
			f.size = 4 + int(binary.BigEndian.Uint32(f.buf[:4]))
			f.want = min(f.size, len(f.buf))
			continue
		case f.got < f.want:
			k := copy(f.buf[f.got:f.want], p)
			f.got += k
			p = p[k:]
			if f.got < f.want {
				return
			}
			head(f.buf[:f.want])
		default:
			k := min(len(p), f.size-f.got)
			f.got += k
			p = p[k:]
		}
		if f.got >= f.size {
			f.got = 0
		}
	}
}

// word is the 4-byte word at i of a frame's head, 0 when the head is shorter.
func word(head []byte, i int) int32 {
	if len(head) < i+4 {
		return 0
	}
	return int32(binary.BigEndian.Uint32(head[i:]))
}

// asksWatch reports whether a request's head is a read that asks for a
// watch: its flag, behind the path, is set. A head cut short of the flag
// (a path too long to keep) counts as no watch.
func asksWatch(head []byte) bool {
	switch word(head, 8) {
	case opExists, opGetData, opGetChildren, opGetChildren2:
	default:
		return false
	}
	n := word(head, 12)
	flag := 16 + int(n)
	return len(head) >= 16 && n >= 0 && flag < len(head) && head[flag] != 0
}

// leavesWatch reports whether a read that asked for a watch, answered with
// the error code code, left it on the servers: any success does, and an
// exists that found no znode (it watches for its creation).
func leavesWatch(op, code int32) bool {
	return code == 0 || op == opExists && code == errNoNode
}
