package recoverable

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestFramesFindEveryHeadWhereverTheStreamIsCut(t *testing.T) {
	t.Parallel()
	var stream []byte
	want := []int32{0, 0, -2, 11, -1, 0, 7, 4, 8, 14, -8, 101}
	for i, size := range []int{32, 8, 16, 100, 5000, 12} {
		stream = append(stream, frame(want[2*i], want[2*i+1], size)...)
	}
	for chunk := 1; chunk <= len(stream); chunk++ {
		f := frames{keep: replyHeadLen}
		var got []int32
		for p := stream; len(p) > 0; {
			k := min(chunk, len(p))
			f.feed(p[:k], func(head []byte) { got = append(got, word(head, 4), word(head, 8)) })
			p = p[k:]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("chunks of %d bytes: heads %v, want %v", chunk, got, want)
		}
	}
}

// read builds the frame of a read request, as go-zookeeper encodes it: xid,
// opcode, the path, then the watch flag.
func read(xid, op int32, path string, watch bool) []byte {
	body := binary.BigEndian.AppendUint32(nil, uint32(xid))
	body = binary.BigEndian.AppendUint32(body, uint32(op))
	body = binary.BigEndian.AppendUint32(body, uint32(len(path)))
	body = append(body, path...)
	if watch {
		body = append(body, 1)
	} else {
		body = append(body, 0)
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// A read's watch flag sits behind its path: the head keeps it however the
// stream is cut, and a sync, whose path is followed by nothing, asks for
// no watch.
func TestFramesFindTheWatchFlag(t *testing.T) {
	t.Parallel()
	stream := slices.Concat(read(1, opExists, "/election/n_0000000001", true), read(2, opGetChildren2, "/election", false),
		read(3, opSync, "/", false), read(4, opGetData, "/a", true), read(5, opGetChildren, "/", true),
		frame(-2, 11, 8))
	want := []bool{true, false, false, true, true, false}
	for chunk := 1; chunk <= len(stream); chunk++ {
		f := frames{keep: requestHeadLen}
		var got []bool
		for p := stream; len(p) > 0; {
			k := min(chunk, len(p))
			f.feed(p[:k], func(head []byte) { got = append(got, asksWatch(head)) })
			p = p[k:]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("chunks of %d bytes: watches %v, want %v", chunk, got, want)
		}
	}
	long := make([]byte, requestHeadLen)
	f := frames{keep: requestHeadLen}
	f.feed(read(6, opExists, "/"+string(long), true), func(head []byte) {
		if asksWatch(head) {
			t.Error("a path longer than the head: the flag is beyond it, and must not be read from the path's bytes")
		}
	})
}
