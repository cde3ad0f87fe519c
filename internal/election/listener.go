package election

import (
	"context"
	"time"
)

// Listener is told when to speak: the articles' NodeMonitorListener. The
// engine declares it because the engine is what calls it; speaker.Speaker
// satisfies it without knowing about it.
type Listener interface {
	// StartSpeaking is called when this candidate becomes the leader. Under
	// at-most-one, confirm proves with a round trip that we still lead and
	// returns the leader's epoch and when the proving request was sent: the
	// proof is as fresh as that moment. The listener calls it before each
	// act and stays silent when it fails. The first call of a term usually
	// answers at once, with the proof the election itself just got. Under
	// at-least-one confirm is nil. It must return promptly: the engine's
	// goroutine waits for it.
	StartSpeaking(confirm func(ctx context.Context) (epoch int64, sent time.Time, err error))
	// StopSpeaking is called when it may no longer act as leader. It must
	// return only once the listener has stopped.
	StopSpeaking()
	// ProcessName names the candidate; it is stored as its znode's data.
	ProcessName() string
}

// actNotifier is a Listener that can say when it has acted: Acted returns
// a channel closed once its next act is done (a Speaker's next line is in
// the file). A new leader sets the watch on its own znode only after its
// first act, so that the watch's round trip competes with nothing on the
// failover's path. A Listener without it gets the watch at once.
type actNotifier interface {
	Acted() <-chan struct{}
}

// preparer is a Listener that can use the round trip after a notification
// that may make it the leader: Prepare gets it ready to act at once (a
// fencing Speaker takes its file lock and reads the last epoch), and
// Unprepare, called when the check decided otherwise, undoes that, so that
// the actual leader never waits for it. Both return at once.
type preparer interface {
	Prepare()
	Unprepare()
}

// watchLate bounds the wait for a first act that does not come (a stale
// proof, a failed confirm, a fenced file): the watch is set then anyway.
const watchLate = time.Second

// Monitor is what both recipes' monitors are, nodemonitor.Monitor and
// znodemonitor.Monitor: one candidate of an election, seen from outside.
// The commands, the bench and the tests take either through it.
type Monitor interface {
	// State is the candidate's state now, Node its znode ("" before it
	// joined), Notifications how many watch notifications woke it.
	State() State
	Node() string
	Notifications() int64
	// Observe carries its status now, then every change, none dropped.
	Observe(ctx context.Context) <-chan Status
	// Done is closed when it ended: closed, its session closed, or given
	// up on its own, which Err explains (the ACL refuses our --auth).
	Done() <-chan struct{}
	Err() error
	// Resign steps down on purpose, deletes its znode and stands again
	// (see Candidate.Resign).
	Resign(ctx context.Context) error
	// Close steps down, deletes its znode and waits for its goroutine.
	Close()
}
