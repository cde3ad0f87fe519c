// Package live keeps the picture that zkview serves: what ZooKeeper's
// watches say of an election, a lock, a group, a configuration, the
// sequences, a barrier and a queue, what the servers say of themselves, and what lands in the out
// file. Each change makes a new Board, which every page gets at once.
package live

// Board is everything the page shows at one moment, as JSON. It is whole
// every time, so that a page that connects, or reconnects, needs nothing
// else, and a page that missed a Board loses nothing by it.
type Board struct {
	// Version grows by one with each change.
	Version int64 `json:"version"`
	// Notified is when zkview received the ZooKeeper notification behind
	// this change, in Unix milliseconds; 0 when the change came from
	// elsewhere (a server probe, the out file). The page measures itself
	// against it.
	Notified float64 `json:"notified"`
	// Cause names what changed, for the page's footer.
	Cause string `json:"cause"`
	// Now is zkview's clock when the Board was sent, in Unix
	// milliseconds: the page counts a session's expiry down on zkview's
	// clock, whatever its own says.
	Now float64 `json:"now"`

	Election  *Election  `json:"election,omitempty"`
	Single    *Election  `json:"single,omitempty"`
	Lock      *Election  `json:"lock,omitempty"`
	Group     *Group     `json:"group,omitempty"`
	Config    *Config    `json:"config,omitempty"`
	Sequences *Sequences `json:"sequences,omitempty"`
	Barrier   *Barrier   `json:"barrier,omitempty"`
	Queue     *Queue     `json:"queue,omitempty"`
	Servers   []Server   `json:"servers"`
	Out       *Out       `json:"out,omitempty"`
	// Log is the event log, newest last.
	Log []Event `json:"log"`
}

// Panel is what every panel has: its znode, whether it exists, and whether
// a flag named it (a panel the user asked for shows even while empty).
type Panel struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Named  bool   `json:"named"`
	// Err is why the panel could not be read, "" when it was.
	Err string `json:"err,omitempty"`
}

// Election is a line of candidates: a sequential election, a lock's queue,
// or the holder of a single-file election and those waiting for its znode.
type Election struct {
	Panel
	// Kind is "sequential", "single-file" or "lock".
	Kind string `json:"kind"`
	// Candidates are in line order; the first leads (or holds).
	Candidates []Candidate `json:"candidates"`
	// Herd is true when a candidate watches the whole parent, as
	// `speaker --watch children` does: every change wakes every one.
	Herd bool `json:"herd"`
	// Leases is a semaphore's N, which its path records (leases=N): its
	// Candidates are then the leases, of which up to N hold. 0 otherwise.
	Leases int `json:"leases,omitempty"`
	// Gate is a semaphore's gate, in line order: its first holds the gate
	// and takes a lease as soon as one is free; the others wait behind.
	Gate []Candidate `json:"gate,omitempty"`
}

// Candidate is one contender, as ZooKeeper and the servers see it.
type Candidate struct {
	Name  string `json:"name"`
	Znode string `json:"znode,omitempty"`
	// Role is leader, holder or waiting: the page's data-role. A lock
	// has several holders at once: readers, or up to N leases.
	Role string `json:"role"`
	// Mode is how a lock's contender wants it: "read", "write" or
	// "lease"; "" in an election.
	Mode string `json:"mode,omitempty"`
	// Waits is the znode (child name) a lock's waiter waits for, by the
	// lock's rule: a reader the nearest writer ahead, a writer the one
	// just ahead, a lease the one just ahead once N are taken. For a
	// queue's handle, the item whose claim it waits to end.
	Waits string `json:"waits,omitempty"`
	// Revoke is set when someone asked this lock holder to let go
	// (`zklock revoke`): a mark on its znode, which it watches. A
	// --revocable holder lets go; another logs it and holds on. It holds
	// who asked, "" when the request did not say.
	Revoke *Revoke `json:"revoke,omitempty"`
	// Epoch is the znode's czxid: the epoch on a leader's lines.
	Epoch int64 `json:"epoch,omitempty"`
	// Since is when its znode was made (ctime, Unix milliseconds), for a
	// candidate zkview found in line when it started; 0 for one it saw
	// join.
	Since float64 `json:"since,omitempty"`
	// Session is the owner's session id, in hex.
	Session string `json:"session,omitempty"`
	// Server is where that session is connected, "" when no server that
	// answered holds it.
	Server string `json:"server,omitempty"`
	// Seen says what the servers can tell of the session: "connected",
	// "not connected" (its process is gone, or it is moving), or
	// "unknown" (a server did not answer).
	Seen string `json:"seen"`
	// Watches are the znodes (child names) it watches, by the servers'
	// wchc; "*" is the whole parent.
	Watches []string `json:"watches"`
	// Life is how its session stands (fourletter.LifeState): "connected",
	// "silent" (connected, but not heard from for more than half its
	// timeout: its process is stopped, or cut off), "cut off" (its server
	// does not answer), "gone" (its process is gone: no server holds it)
	// or "unknown".
	Life string `json:"life"`
	// Heard is when a server last heard from its session, in Unix
	// milliseconds, and Timeout its session timeout in milliseconds; both
	// 0 while it is connected (they change with every ping) or unknown.
	// Its session expires at Heard+Timeout unless it comes back: the
	// page's countdown.
	Heard   float64 `json:"heard,omitempty"`
	Timeout float64 `json:"timeout,omitempty"`
}

// Revoke is a revoke request on a lock contender's znode.
type Revoke struct {
	By string `json:"by"`
}

// Group is a group's members.
type Group struct {
	Panel
	Members []string `json:"members"`
}

// Config is a configuration's keys.
type Config struct {
	Panel
	Keys []Key `json:"keys"`
}

// Key is one key of a configuration.
type Key struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Version int32  `json:"version"`
}

// Sequences are the sequence-ID service's sequences and its persistence
// leader.
type Sequences struct {
	Panel
	Leader string     `json:"leader"`
	List   []Sequence `json:"list"`
}

// Sequence is one sequence: the next ID to hand out, and the limit below
// which IDs may be handed out.
type Sequence struct {
	Name  string `json:"name"`
	Next  int64  `json:"next"`
	Limit int64  `json:"limit"`
	Err   string `json:"err,omitempty"`
}

// Server is one ZooKeeper server as it says of itself.
type Server struct {
	Addr        string `json:"addr"`
	Mode        string `json:"mode"`
	Connections int    `json:"connections"`
}

// Event is a line of the event log.
type Event struct {
	// At is when zkview saw it, in Unix milliseconds.
	At   float64 `json:"at"`
	Text string  `json:"text"`
	// Kind colours it: join, leave, leader, expired, server, change.
	Kind string `json:"kind"`
}
