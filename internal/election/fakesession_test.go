package election

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// fakeSession is a Session that the test drives: it delivers each session
// event itself, and answers each SyncExists itself, at once, late or
// never. Nothing happens on a clock of its own: the session's deadline
// is whatever the test sets with alive.
type fakeSession struct {
	t      *testing.T
	events chan SessionEvent // the loop's Observe channel: unbuffered, so a send is a hand-off
	syncs  chan *syncCall    // SyncExists calls, for the test to answer

	mu        sync.Mutex
	now       SessionEvent
	timeout   time.Duration
	aliveTill time.Time
	closing   bool
}

// syncCall is one SyncExists, waiting for the test's answer.
type syncCall struct {
	path  string
	ctx   context.Context
	reply chan syncAnswer
}

// syncAnswer is what a SyncExists returns.
type syncAnswer struct {
	znode Znode
	sent  time.Time
	err   error
}

// errFakeClosed is what the fake answers once its owner closed it.
var errFakeClosed = errors.New("fake session: closed")

// newFakeSession returns a connecting session with a timeout of a second,
// which the servers may expire an hour from now (see alive).
func newFakeSession(t *testing.T) *fakeSession {
	return &fakeSession{t: t, events: make(chan SessionEvent), syncs: make(chan *syncCall),
		timeout: time.Second, aliveTill: time.Now().Add(time.Hour)}
}

func (s *fakeSession) SessionID() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.now.State != SessionConnected && s.now.State != SessionDisconnected {
		return 0
	}
	return s.now.SessionID
}

func (s *fakeSession) SessionTimeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timeout
}

func (s *fakeSession) AliveUntil() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.aliveTill
}

func (s *fakeSession) State() SessionEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Observe hands the loop the test's events. The test sends the first one
// (the state at the time of the call) itself.
func (s *fakeSession) Observe(context.Context) <-chan SessionEvent { return s.events }

func (s *fakeSession) Closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// SyncExists waits for the test's answer, or for ctx.
func (s *fakeSession) SyncExists(ctx context.Context, path string) (Znode, time.Time, error) {
	call := &syncCall{path: path, ctx: ctx, reply: make(chan syncAnswer, 1)}
	sent := time.Now()
	select {
	case s.syncs <- call:
	case <-ctx.Done():
		return Znode{}, sent, ctx.Err()
	}
	select {
	case a := <-call.reply:
		return a.znode, a.sent, a.err
	case <-ctx.Done():
		return Znode{}, sent, ctx.Err()
	}
}

// Settle has nothing to wait for: the fake's requests are answered or
// failed before they return.
func (s *fakeSession) Settle(context.Context) error {
	if s.Closing() {
		return errFakeClosed
	}
	return nil
}

// Unanswered: a lost connection is the fake's one fault without an answer.
func (s *fakeSession) Unanswered(err error) bool { return errors.Is(err, zk.ErrConnectionClosed) }

// deliver makes ev the session's state and hands it to the loop, which
// must take it within a few seconds.
func (s *fakeSession) deliver(ev SessionEvent) {
	s.t.Helper()
	s.mu.Lock()
	s.now = ev
	if ev.State == SessionClosed {
		s.closing = true
	}
	s.mu.Unlock()
	s.hand(ev)
}

// hand gives ev to the loop without making it the session's state: an
// event that the loop takes late, after the client moved on.
func (s *fakeSession) hand(ev SessionEvent) {
	s.t.Helper()
	select {
	case s.events <- ev:
	case <-time.After(5 * time.Second):
		s.t.Fatalf("the loop never took the session event %+v", ev)
	}
}

// setState makes ev the session's state without telling the loop: what
// the client knows before its event reaches the loop.
func (s *fakeSession) setState(ev SessionEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = ev
}

// alive sets when the servers may expire the session.
func (s *fakeSession) alive(until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aliveTill = until
}

// sync waits for the next SyncExists, of path.
func (s *fakeSession) sync(path string) *syncCall {
	s.t.Helper()
	select {
	case call := <-s.syncs:
		if call.path != path {
			s.t.Fatalf("SyncExists(%q), want %q", call.path, path)
		}
		return call
	case <-time.After(5 * time.Second):
		s.t.Fatalf("no SyncExists of %s", path)
		return nil
	}
}

// answer answers a SyncExists.
func (c *syncCall) answer(z Znode, sent time.Time, err error) {
	c.reply <- syncAnswer{znode: z, sent: sent, err: err}
}
