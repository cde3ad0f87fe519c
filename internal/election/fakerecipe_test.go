package election

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// fakeRecipe hands each Check to the test, which answers it at once, late
// or never, and answers each Leave from a script (nil once it runs out),
// noting the goroutine that called it.
type fakeRecipe struct {
	t      *testing.T
	checks chan *checkCall

	mu     sync.Mutex
	script []error // the next Leaves' answers; errHold waits for ctx
	leaves []int   // the goroutine of each Leave
}

// errHold in a Leave script makes that Leave wait until its ctx is done.
var errHold = &holdError{}

type holdError struct{}

func (*holdError) Error() string { return "held until the deadline" }

// checkCall is one Check, waiting for the test's answer.
type checkCall struct {
	ctx   context.Context
	reply chan checkAnswer
}

type checkAnswer struct {
	d   Decision
	err error
}

func newFakeRecipe(t *testing.T) *fakeRecipe {
	return &fakeRecipe{t: t, checks: make(chan *checkCall)}
}

func (r *fakeRecipe) Check(ctx context.Context) (Decision, error) {
	call := &checkCall{ctx: ctx, reply: make(chan checkAnswer, 1)}
	select {
	case r.checks <- call:
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
	select {
	case a := <-call.reply:
		return a.d, a.err
	case <-ctx.Done():
		return Decision{}, ctx.Err()
	}
}

func (r *fakeRecipe) Leave(ctx context.Context) error {
	r.mu.Lock()
	r.leaves = append(r.leaves, goroutineID())
	var err error
	if len(r.script) > 0 {
		err, r.script = r.script[0], r.script[1:]
	}
	r.mu.Unlock()
	if err == errHold {
		<-ctx.Done()
		return ctx.Err()
	}
	return err
}

// leaveWith scripts the answers of the next Leaves.
func (r *fakeRecipe) leaveWith(errs ...error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.script = errs
}

// left returns the goroutines that called Leave, in order.
func (r *fakeRecipe) left() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.leaves...)
}

// check waits for the next Check.
func (r *fakeRecipe) check() *checkCall {
	r.t.Helper()
	select {
	case call := <-r.checks:
		return call
	case <-time.After(5 * time.Second):
		r.t.Fatal("the candidate never checked")
		return nil
	}
}

// answer answers a Check.
func (c *checkCall) answer(d Decision, err error) { c.reply <- checkAnswer{d: d, err: err} }

// follower is a decision that node waits in line, woken by wake.
func follower(node string, wake chan zk.Event) Decision {
	return Decision{Node: node, Wake: wake}
}

// leader is a decision that node leads, proven by a sync sent at sent (no
// proof when sent is zero), woken by wake.
func leader(node string, wake chan zk.Event, epoch int64, sent time.Time) Decision {
	return Decision{Leader: true, Node: node, Wake: wake, Proof: Proof{Epoch: epoch, Sent: sent}}
}

// goroutineID reads the running goroutine's number from its stack header,
// "goroutine 7 [running]:": enough for a test to tell who called.
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	id, _ := strconv.Atoi(string(buf[:bytes.IndexByte(buf, ' ')]))
	return id
}

// fakeListener notes what the engine tells it, in order: "start" and
// "stop", and "prepare" and "unprepare" when it prepares.
type fakeListener struct {
	said     chan string // buffered: the engine never waits for the test
	mu       sync.Mutex
	confirms []func(context.Context) (int64, time.Time, error)
}

func newFakeListener() *fakeListener { return &fakeListener{said: make(chan string, 100)} }

func (l *fakeListener) StartSpeaking(confirm func(context.Context) (int64, time.Time, error)) {
	l.mu.Lock()
	l.confirms = append(l.confirms, confirm)
	l.mu.Unlock()
	l.said <- "start"
}

func (l *fakeListener) StopSpeaking()       { l.said <- "stop" }
func (l *fakeListener) ProcessName() string { return "fake" }

// confirm returns the confirm of the last StartSpeaking.
func (l *fakeListener) confirm() func(context.Context) (int64, time.Time, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.confirms[len(l.confirms)-1]
}

// heard returns what the listener was told since the last call.
func (l *fakeListener) heard() []string {
	var got []string
	for {
		select {
		case s := <-l.said:
			got = append(got, s)
		default:
			return got
		}
	}
}

// preparingListener is a fakeListener that prepares (see preparer).
type preparingListener struct{ *fakeListener }

func (l preparingListener) Prepare()   { l.said <- "prepare" }
func (l preparingListener) Unprepare() { l.said <- "unprepare" }

// actingListener is a fakeListener that says when it acted (see
// actNotifier): the test closes acted.
type actingListener struct {
	*fakeListener
	acted chan struct{}
}

func (l actingListener) Acted() <-chan struct{} { return l.acted }
