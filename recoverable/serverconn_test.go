package recoverable

import (
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// frame builds one ZooKeeper frame whose body starts with the words first
// and second and is size bytes long in all.
func frame(first, second int32, size int) []byte {
	b := make([]byte, 4+size)
	binary.BigEndian.PutUint32(b, uint32(size))
	binary.BigEndian.PutUint32(b[4:], uint32(first))
	binary.BigEndian.PutUint32(b[8:], uint32(second))
	return b
}

// Every answer settles the oldest request; events settle nothing; a
// handshake answered with timeout 0 (an expired session) and the answer to
// an auth packet prove no life.
func TestServerConnPairsAnswersWithRequestsInOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		timeout int32
		acked   []int // which requests' send times are reported: 0 is the handshake
	}{{"live session", 2000, []int{0, 2, 3}}, {"expired session", 0, []int{2, 3}}} {
		t.Run(tc.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			defer server.Close()
			var acked []time.Time
			var negotiated int32 = -1
			c := &serverConn{Conn: client, acked: func(s time.Time) { acked = append(acked, s) }, timeout: func(ms int32) { negotiated = ms }}

			// send has the client write one request; it returns a time
			// just before the write began.
			send := func(xid, op int32) time.Time {
				before := time.Now()
				go func() { _, _ = c.Write(frame(xid, op, 12)) }()
				buf := make([]byte, 16)
				if _, err := server.Read(buf); err != nil {
					t.Fatal(err)
				}
				return before
			}
			answer := func(b []byte) {
				go func() { _, _ = server.Write(b) }()
				buf := make([]byte, len(b))
				for n := 0; n < len(b); {
					k, err := c.Read(buf[n:])
					if err != nil {
						t.Fatal(err)
					}
					n += k
				}
			}

			var sent []time.Time
			sent = append(sent, send(0, 0))
			answer(frame(0, tc.timeout, 36)) // a ConnectResponse: version, timeout, session, password
			sent = append(sent, send(1, opSetAuth))
			answer(frame(1, 0, 16))
			sent = append(sent, send(2, 4), send(3, 4)) // two getData
			before := len(acked)
			answer(frame(-1, 0, 20)) // a watch event: it answers nothing
			if len(acked) != before {
				t.Fatalf("a watch event was taken for the answer to a request")
			}
			answer(frame(2, 0, 16))
			answer(frame(3, 0, 16))
			sent = append(sent, time.Now())

			if negotiated != tc.timeout {
				t.Errorf("timeout read off the handshake = %d, want %d", negotiated, tc.timeout)
			}
			if len(acked) != len(tc.acked) {
				t.Fatalf("%d answers reported, want %d", len(acked), len(tc.acked))
			}
			for j, i := range tc.acked {
				if acked[j].Before(sent[i]) || acked[j].After(sent[i+1]) {
					t.Errorf("answer %d reported %v, want the send time of request %d (between %v and %v)", j, acked[j], i, sent[i], sent[i+1])
				}
			}
		})
	}
}
