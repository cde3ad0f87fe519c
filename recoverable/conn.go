package recoverable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/broadcast"
)

// RecoverableZookeeper is the articles' RecoverableZookeeper: a ZooKeeper
// client whose operations retry the faults a retry can cure, with the backoff
// of a RetryCounter, and whose session changes are published to observers
// without loss (see Observe).
type RecoverableZookeeper struct {
	conn    *zk.Conn
	servers []string
	retry   RetryCounterFactory
	log     *slog.Logger
	acl     []zk.ACL // for the znodes of the layers above (ACL)

	events  *broadcast.Broadcaster[SessionEvent]
	timeout atomic.Int64 // negotiated session timeout in ns, read off the wire
	born    time.Time    // the monotonic origin of acked
	acked   atomic.Int64 // ns since born when the last request a server answered was sent
	writes  writeWaiters // who waits for a request to leave (pipeline)
	// serverMode knows whether reads need a sync to be fresh.
	serverMode serverMode
	traffic    trafficCounter
	retries    retryCount
	abandoned  abandonedCalls // calls given up on, still running (Settle)

	// Only go-zookeeper's callback goroutine writes these.
	lastSession int64
	expired     bool
	connected   bool

	connReady chan struct{} // closed once conn is set, before any callback reads it
	authReady chan struct{} // closed once a server accepted our credentials (authenticate)
	authDone  chan struct{} // closed when authenticate has returned
	sessions  atomic.Int64  // connections that got a session; go-zookeeper re-sends credentials after each
	quit      chan struct{}
	closeOnce sync.Once
	// zkEvents is go-zookeeper's event channel. The callback sees every
	// event already, so nobody reads it until Close, which drains it to
	// learn that go-zookeeper's loop has ended: a reader would be one more
	// goroutine to wake at every notification, on the failover's path.
	// go-zookeeper drops what does not fit; it never blocks on it.
	zkEvents <-chan zk.Event
}

// Connect starts a client for servers ("host:port" each) with the session
// timeout asked for. It returns at once: go-zookeeper connects, and
// reconnects, in the background. Use WaitConnected or Observe to follow it.
func Connect(servers []string, sessionTimeout time.Duration, opts ...Option) (*RecoverableZookeeper, error) {
	o := options{retry: DefaultRetryCounterFactory(), logger: slog.Default(), acl: zk.WorldACL(zk.PermAll)}
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.acl) == 0 {
		return nil, errors.New("recoverable: WithACL: the ACL is empty; ZooKeeper would refuse every create")
	}
	r := &RecoverableZookeeper{
		born:      time.Now(),
		servers:   append([]string(nil), servers...),
		retry:     o.retry,
		log:       o.logger,
		acl:       o.acl,
		events:    newBroadcaster(),
		connReady: make(chan struct{}),
		authReady: make(chan struct{}),
		authDone:  make(chan struct{}),
		quit:      make(chan struct{}),
	}
	r.timeout.Store(int64(sessionTimeout))
	conn, ch, err := zk.Connect(servers, sessionTimeout,
		zk.WithEventCallback(r.onEvent),
		zk.WithLogger(zkLogger{r.log}),
		zk.WithDialer(r.dial),
	)
	if err != nil {
		return nil, fmt.Errorf("recoverable: connect to %s: %w", strings.Join(servers, ","), err)
	}
	r.conn = conn
	close(r.connReady)
	if o.digest == "" {
		close(r.authReady)
		close(r.authDone)
	} else {
		go r.authenticate(o.digest)
	}
	r.zkEvents = ch
	return r, nil
}

// Conn returns the underlying go-zookeeper connection, for what this
// wrapper does not cover. Its calls are not retried.
func (r *RecoverableZookeeper) Conn() *zk.Conn { return r.conn }

// SessionID returns the id of the session held now, or 0.
func (r *RecoverableZookeeper) SessionID() int64 { return r.conn.SessionID() }

// SessionTimeout returns the timeout the server negotiated for the current
// session, or the one asked for before any session.
func (r *RecoverableZookeeper) SessionTimeout() time.Duration {
	return time.Duration(r.timeout.Load())
}

// State returns the latest session event.
func (r *RecoverableZookeeper) State() SessionEvent { return r.events.Current() }

// Observe returns a channel of session events. The first event is the state
// at the time of the call; then every change follows, in order, none dropped,
// however slowly the caller reads. The channel closes after StateClosed or
// when ctx is done; read it until then or cancel ctx, or its goroutine stays.
func (r *RecoverableZookeeper) Observe(ctx context.Context) <-chan SessionEvent {
	return r.events.Observe(ctx)
}

// WaitConnected blocks until the client holds a session or ctx is done. While
// it waits it logs "waiting for ZooKeeper", less and less often.
func (r *RecoverableZookeeper) WaitConnected(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := r.Observe(ctx)
	counter := NewRetryCounter(1<<30, 500*time.Millisecond, 30*time.Second, 0)
	for {
		next := counter.Backoff()
		timer := time.NewTimer(next)
		select {
		case ev, ok := <-events:
			timer.Stop()
			if !ok {
				if err := ctx.Err(); err != nil {
					return err
				}
				return ErrClosed
			}
			if ev.State == StateConnected {
				return nil
			}
		case <-timer.C:
			r.log.Info("waiting for ZooKeeper at "+strings.Join(r.servers, ","), "next_check_in", counter.Backoff())
			counter.UseRetry()
		}
	}
}

// Close ends the session, so that its ephemeral znodes vanish at once, and
// waits for go-zookeeper's goroutines and every observer to finish. It is
// safe to call more than once.
func (r *RecoverableZookeeper) Close() {
	r.closeOnce.Do(func() {
		close(r.quit)
		id := r.conn.SessionID()
		r.conn.Close()
		<-r.authDone // a pending AddAuth returns once go-zookeeper is told to quit
		r.awaitLoopEnd(loopEndBound)
		r.serverMode.wg.Wait()
		r.log.Debug("session closed", "session", fmt.Sprintf("0x%x", id))
		r.events.Close(SessionEvent{State: StateClosed}, time.Second)
	})
}

// loopEndBound bounds Close's wait for go-zookeeper's connection loop to
// end. go-zookeeper's own Close returns within about three seconds, and
// its loop ends at once after it; but the loop can wedge for good: a
// request sent just as the client closes may be answered three times (the
// close's "tie", a failed write, the final flush) on a channel that holds
// two, and the flush blocks forever (go-zookeeper v1.0.4, conn.go's
// flushRequests). A Close that waited for it never returned.
const loopEndBound = 10 * time.Second

// awaitLoopEnd drains go-zookeeper's events until its loop ends, or for d
// at most; then it leaves the wedged loop behind, and says so.
func (r *RecoverableZookeeper) awaitLoopEnd(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		select {
		case _, ok := <-r.zkEvents:
			if !ok {
				return
			}
		case <-deadline.C:
			r.log.Warn("go-zookeeper's connection loop did not end after Close; leaving it (a known wedge of its request flush)", "waited", d)
			return
		}
	}
}

// Closing reports whether Close has been called: what follows (our
// ephemeral znodes vanishing, requests failing) is the close, not a fault.
func (r *RecoverableZookeeper) Closing() bool { return r.closed() }

// Done is closed when Close is called: everything on this client ends
// with it.
func (r *RecoverableZookeeper) Done() <-chan struct{} { return r.quit }

// closed reports whether Close was called.
func (r *RecoverableZookeeper) closed() bool {
	select {
	case <-r.quit:
		return true
	default:
		return false
	}
}

// onEvent runs on go-zookeeper's goroutine for every event; it must not
// block. It turns the client's raw states into SessionEvents: go-zookeeper
// says "has session" both after a plain reconnect and after it quietly
// replaced an expired session, and only the session id tells them apart.
func (r *RecoverableZookeeper) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	<-r.connReady // at most the instant between zk.Connect and its return
	switch ev.State {
	case zk.StateHasSession:
		r.sessions.Add(1)
		r.serverMode.connected(ev.Server, r.quit)
		id := r.conn.SessionID()
		out := SessionEvent{State: StateConnected, SessionID: id, NewSession: id != r.lastSession,
			Timeout: r.SessionTimeout(), Server: ev.Server}
		switch {
		case r.expired:
			r.log.Warn("session expired; new session", "session", fmt.Sprintf("0x%x", id), "timeout", out.Timeout)
		case out.NewSession:
			r.log.Info("connected", "session", fmt.Sprintf("0x%x", id), "timeout", out.Timeout, "server", ev.Server)
		default:
			r.log.Info("reconnected", "session", fmt.Sprintf("0x%x", id), "server", ev.Server)
		}
		r.lastSession, r.expired, r.connected = id, false, true
		r.events.Publish(out)
	case zk.StateDisconnected:
		r.serverMode.lost()
		// go-zookeeper says "disconnected" again after every failed dial;
		// only the first one after a session is news.
		if !r.connected || r.closed() {
			return
		}
		r.connected = false
		r.log.Warn("disconnected from ZooKeeper", "session", fmt.Sprintf("0x%x", r.lastSession), "server", ev.Server)
		r.events.Publish(SessionEvent{State: StateDisconnected, SessionID: r.lastSession, Server: ev.Server})
	case zk.StateExpired:
		r.serverMode.lost()
		r.expired, r.connected = true, false
		r.log.Warn("session expired", "session", fmt.Sprintf("0x%x", r.lastSession))
		r.events.Publish(SessionEvent{State: StateExpired, SessionID: r.lastSession, Server: ev.Server})
	case zk.StateAuthFailed:
		r.log.Error("ZooKeeper refused our credentials", "server", ev.Server)
		r.events.Publish(SessionEvent{State: StateAuthFailed, SessionID: r.lastSession, Server: ev.Server})
	}
}

// zkLogger routes go-zookeeper's log lines into slog at debug level.
type zkLogger struct{ log *slog.Logger }

// Printf passes go-zookeeper's own messages on at debug level.
func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug("zk: " + fmt.Sprintf(format, args...))
}
